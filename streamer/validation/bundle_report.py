"""The outcome of ``streamer validate``: the problems found, one content-safe line each."""

from __future__ import annotations

from dataclasses import dataclass, field

from streamer.framework.errors.safe_text import quoted


@dataclass
class BundleReport:
    """The outcome of ``validate``: ``problems`` is empty when the bundle is valid.

    Each problem starts with the quoted name of the bundle file it is about (a file named
    ``x\\nstreamer: error: forged`` stays on its line: ``"x\\nstreamer: error: forged"``).
    """

    document_id: str | None = None
    files: tuple[str, ...] = ()
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def problem(self, file: str, message: str) -> None:
        self.problems.append(f"{quoted(file)}: {message}")

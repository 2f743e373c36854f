"""The server's own figures of a lane's requests, as the receipt records them.

llama.cpp answers every completion with ``timings``: ``prompt_n`` (the prompt tokens it
evaluated: those it did not take from the slot's cache), ``cache_n`` (those it took;
recorded as the lane's ``cached_tokens``), ``prompt_ms`` and ``predicted_ms`` (its own
time for the prompt and for the answer). A lane's receipt sums them under ``server``
(``prompt_evaluated``, ``prompt_ms``, ``predicted_ms``), and only where the server sent
any: the receipts of other servers keep their keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServerTimings:
    """llama.cpp's ``timings`` of one answer: the prompt tokens it evaluated (``prompt_n``)
    and its own milliseconds for the prompt and the answer (``None`` where unsaid)."""

    prompt_evaluated: int | None
    prompt_ms: float | None
    predicted_ms: float | None


@dataclass
class ServerFigures:
    """The sums of a lane's ``ServerTimings`` (each ``None`` until the server said it)."""

    prompt_evaluated: int | None = None
    prompt_ms: float | None = None
    predicted_ms: float | None = None

    def add(self, timings: ServerTimings | None) -> None:
        if timings is None:
            return
        if timings.prompt_evaluated is not None:
            self.prompt_evaluated = (self.prompt_evaluated or 0) + timings.prompt_evaluated
        if timings.prompt_ms is not None:
            self.prompt_ms = (self.prompt_ms or 0.0) + timings.prompt_ms
        if timings.predicted_ms is not None:
            self.predicted_ms = (self.predicted_ms or 0.0) + timings.predicted_ms

    def receipt(self) -> dict[str, Any]:
        """``{"server": {...}}`` where the server said any figure, else ``{}``."""
        said = (self.prompt_evaluated, self.prompt_ms, self.predicted_ms)
        if all(figure is None for figure in said):
            return {}
        return {
            "server": {
                "prompt_evaluated": self.prompt_evaluated,
                "prompt_ms": None if self.prompt_ms is None else round(self.prompt_ms, 1),
                "predicted_ms": None if self.predicted_ms is None else round(self.predicted_ms, 1),
            }
        }

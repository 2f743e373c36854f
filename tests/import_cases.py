"""The committed import fixtures (fixtures/import) and their expected source documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from msgspec import UNSET

from streamer.framework.source.source_unit import SourceUnit
from tests.support import REPO

FIXTURES = REPO / "fixtures" / "import"
EXPECTED = FIXTURES / "expected"


@dataclass(frozen=True)
class ImportCase:
    name: str
    format: str
    input: str
    expected: str
    document_id: str
    options: tuple[str, ...] = ()

    @property
    def input_path(self) -> str:
        return str(FIXTURES / self.input)

    @property
    def expected_bytes(self) -> bytes:
        return (EXPECTED / self.expected).read_bytes()

    def args(self, source: str | None = None, *extra: str) -> list[str]:
        return ["import", self.format, source or self.input_path, *self.options, *extra]


CASES = [
    ImportCase("text", "text", "bridge.txt", "text.jsonl", "bridge"),
    ImportCase("webvtt", "webvtt", "bridge.vtt", "webvtt.jsonl", "bridge"),
    ImportCase("srt", "srt", "bridge.srt", "srt.jsonl", "bridge", ("--speaker-prefix",)),
    ImportCase("srt-plain", "srt", "bridge.srt", "srt-without-speaker-prefix.jsonl", "bridge"),
    ImportCase("whisperx", "whisperx", "bridge-whisperx.json", "whisperx.jsonl", "bridge-whisperx"),
    ImportCase("crd3", "crd3", "bridge-crd3.json", "crd3.jsonl", "bridge-crd3"),
    ImportCase(
        "crd3-line",
        "crd3",
        "bridge-crd3.json",
        "crd3-line.jsonl",
        "bridge-crd3",
        ("--unit", "line"),
    ),
]
CASE_IDS = [case.name for case in CASES]


def plain(unit: SourceUnit) -> tuple[Any, ...]:
    """``(unit_id, text, speaker, start_ms, end_ms)`` of an imported unit, ``None`` for
    metadata it does not have."""
    metadata = unit.metadata
    if metadata is UNSET:
        return (unit.unit_id, unit.text, None, None, None)
    fields = (metadata.speaker, metadata.start_ms, metadata.end_ms)
    return (unit.unit_id, unit.text, *(None if value is UNSET else value for value in fields))

"""``batch.jsonl``: one line per session of a batch, how it ended (``SummaryLine``), read
back by a rerun (``previous_lines``) and written atomically (``write_summary``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from streamer.api.batch_inputs import TranscriptSeen
from streamer.output.publication import atomic_file

SUMMARY_FILE = "batch.jsonl"
COMPLETE = ("ok", "skipped")


class SummaryLine(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One line of ``batch.jsonl``: how one session of the manifest ended."""

    row: int
    document_id: str
    transcript: str
    format: str
    status: str
    exit_status: int
    error: str | None
    seconds: float
    warnings: int
    inputs: str
    receipt: dict[str, Any] | None
    transcript_seen: TranscriptSeen | None = None  # batch_inputs: a rerun's quick check


def previous_lines(summary: Path) -> dict[str, SummaryLine]:
    """The lines of an earlier ``batch.jsonl`` by document ID; unreadable lines are
    ignored (their sessions simply run again)."""
    try:
        data = summary.read_bytes()
    except OSError:
        return {}
    lines: dict[str, SummaryLine] = {}
    for raw in data.splitlines():
        try:
            line = msgspec.json.decode(raw, type=SummaryLine)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        lines[line.document_id] = line
    return lines


def write_summary(summary: Path, lines: dict[int, SummaryLine]) -> None:
    with atomic_file(summary) as out:
        for row in sorted(lines):
            out.write(msgspec.json.encode(lines[row]) + b"\n")

"""Rejections: what normalization did not accept, and why, never with a value.

A rejection line of ``rejections.jsonl`` is one compact object, members in this order:
``{"lane_id": "spells", "line": 7, "chunk_id": "chunk-000003", "reason": "outside_chunk",
"path": "$.record.source_refs[0].end_unit_id"}``. ``line`` is the candidate's line in its
file (the header is line 1); ``chunk_id`` is the candidate's chunk when it names a chunk
of the document's chunk plan, else ``null`` (an unknown chunk ID is the candidate's own
text, which is never repeated); ``path`` is a JSON path into the candidate line.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class Reason(StrEnum):
    """Why a candidate was rejected; one reason per candidate, the first found, checked
    in this order."""

    INVALID_JSON = "invalid_json"  # the line is not one JSON value in UTF-8 (or is blank)
    INVALID_CANDIDATE = "invalid_candidate"  # not {"chunk_id": non-empty string, "record"}
    INVALID_RECORD = "invalid_record"  # the record breaks the kind's model-facing record
    UNKNOWN_CHUNK = "unknown_chunk"  # chunk_id is not a chunk of the document
    UNKNOWN_UNIT = "unknown_unit"  # a reference names a unit the document lacks
    REVERSED_REFERENCE = "reversed_reference"  # a reference's start is after its end
    OUTSIDE_CHUNK = "outside_chunk"  # a reference cites a unit outside the candidate's chunk
    UNSUPPORTED = "unsupported"  # a textual member is not said by the cited units (v1.1)


class Rejection(msgspec.Struct, frozen=True):
    lane_id: str
    line: int
    chunk_id: str | None
    reason: str
    path: str

    def warning(self) -> str:
        """The one stderr line (after ``streamer: warning: ``) that reports it."""
        return (
            f"lane {self.lane_id} candidate line {self.line}: rejected, {self.reason} "
            f"at {self.path}"
        )


_encoder = msgspec.json.Encoder()


def rejection_lines(rejections: list[Rejection]) -> bytes:
    """``rejections.jsonl``: one line each, in the given order."""
    return b"".join(_encoder.encode(rejection) + b"\n" for rejection in rejections)

"""A candidate's chunk and references, checked against the source index.

A reference is grounded when both its units exist in the document, its start does not
come after its end by position, and both lie inside the candidate's chunk. The first
problem found (chunk first, then each reference in order: start unit, end unit, order,
chunk bounds) is the candidate's one rejection.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from streamer.normalization.collapse import Ref
from streamer.normalization.rejections import Reason
from streamer.normalization.source_index import ChunkSpan


@dataclass(frozen=True)
class Problem:
    reason: Reason
    path: str


def ground(
    chunk: ChunkSpan | None,
    refs: list[tuple[str, dict[str, str]]],
    positions: Mapping[str, int],
) -> list[Ref] | Problem:
    """``refs``: (JSON path, reference) pairs. The grounded references, or the problem."""
    if chunk is None:
        return Problem(Reason.UNKNOWN_CHUNK, "$.chunk_id")
    grounded: list[Ref] = []
    for path, reference in refs:
        start_id, end_id = reference["start_unit_id"], reference["end_unit_id"]
        start = positions.get(start_id)
        if start is None:
            return Problem(Reason.UNKNOWN_UNIT, f"{path}.start_unit_id")
        end = positions.get(end_id)
        if end is None:
            return Problem(Reason.UNKNOWN_UNIT, f"{path}.end_unit_id")
        if start > end:
            return Problem(Reason.REVERSED_REFERENCE, path)
        if start < chunk.start:
            return Problem(Reason.OUTSIDE_CHUNK, f"{path}.start_unit_id")
        if end > chunk.end:
            return Problem(Reason.OUTSIDE_CHUNK, f"{path}.end_unit_id")
        grounded.append(Ref(start, end, start_id, end_id))
    return grounded

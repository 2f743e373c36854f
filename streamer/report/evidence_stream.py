"""What the page reads of a (validated) bundle's documents besides what validation
collected, streamed, never held whole: the evidence context's header members
(``framework.json.events.first_item``) and the source document's unit count from the chunk
map. The evidence's units and contexts come from validation's reading
(``evidence_rows.EvidenceRows``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson

from streamer.framework.errors.types import InputError
from streamer.framework.json.events import first_item
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE


@dataclass(frozen=True)
class EvidenceHeader:
    window_units: int
    lanes: list[str]


def _first(path: Path, prefix: str, buffer_size: int) -> Any:
    with path.open("rb") as file:
        try:
            return first_item(file, prefix, buffer_size)
        except KeyError:
            raise InputError(f"{path.name}: {prefix} is missing") from None


def read_header(path: Path, buffer_size: int = DEFAULT_BUFFER_SIZE) -> EvidenceHeader:
    return EvidenceHeader(
        int(_first(path, "window_units", buffer_size)), list(_first(path, "lanes", buffer_size))
    )


def session_units(chunk_map: Path, buffer_size: int = DEFAULT_BUFFER_SIZE) -> int | None:
    """The source document's unit count, from its (validated) chunk map: chunk ``k`` starts
    at unit ``k * (max_units - overlap_units)``; ``None`` for a map without chunks."""
    chunking = _first(chunk_map, "chunking", buffer_size)
    step = int(chunking["max_units"]) - int(chunking["overlap_units"])
    chunks, last = 0, 0
    with chunk_map.open("rb") as file:
        for count in ijson.items(file, "chunks.item.unit_count", buf_size=buffer_size):
            chunks, last = chunks + 1, int(count)
    return None if chunks == 0 else (chunks - 1) * step + last

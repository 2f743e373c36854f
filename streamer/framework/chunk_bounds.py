"""The bounds of the extraction chunks, collected while the source document streams by.

``ChunkBoundsTap.tap(batches)`` passes batches of validated units through unchanged and
feeds their unit IDs to the streaming ``Chunker`` (the same chunking as ``streamer
chunk``), keeping only each chunk's bounds: the chunk map is computed in the pass that
reads the document for everything else, and holds no transcript text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from streamer.framework.chunking import Chunk, Chunker
from streamer.framework.source_unit_batches import Batch


@dataclass(frozen=True)
class ChunkBounds:
    """One chunk of the chunk map: its ID, first and last unit IDs and its size."""

    chunk_id: str
    start_unit_id: str
    end_unit_id: str
    unit_count: int

    def to_json(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "start_unit_id": self.start_unit_id,
            "end_unit_id": self.end_unit_id,
            "unit_count": self.unit_count,
        }


def _bounds(chunk: Chunk[str]) -> ChunkBounds:
    items = chunk.items
    return ChunkBounds(chunk.chunk_id, items[0], items[-1], len(items))


class ChunkBoundsTap:
    """Collects the chunk bounds of the units that ``tap`` passes through."""

    def __init__(self, max_units: int, overlap_units: int) -> None:
        self.max_units = max_units
        self.overlap_units = overlap_units
        self.chunks: list[ChunkBounds] = []
        self._chunker: Chunker[str] = Chunker(max_units, overlap_units)

    def tap(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        """Yield ``batches`` unchanged; once they are exhausted, ``chunks`` is complete."""
        add_many = self._chunker.add_many
        chunks = self.chunks
        for batch in batches:
            chunks.extend(map(_bounds, add_many(batch.ids)))
            yield batch
        chunks.extend(_bounds(chunk) for chunk in self._chunker.finish())

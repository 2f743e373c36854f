"""The one pass over the source document that normalization needs.

``SourceIndexTap.tap(batches)`` passes batches of validated units through unchanged,
feeding their unit IDs to the framework's streaming ``Chunker`` (exactly the chunk plan
of ``streamer chunk`` and the bundle's chunk map) and keeping only what the candidates
ask about: the span of each chunk a candidate names, and the document position of each
unit ID a candidate cites. Memory is bounded by the candidates, not by the transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass

from streamer.framework.chunking.chunker import Chunk, Chunker
from streamer.framework.source.units import Batch


@dataclass(frozen=True)
class ChunkSpan:
    """A chunk of the plan: its ID and its first and last document positions."""

    chunk_id: str
    start: int
    end: int


class SourceIndexTap:
    """Collects the spans of ``chunk_ids`` and the positions of ``unit_ids``."""

    def __init__(
        self, max_units: int, overlap_units: int, chunk_ids: Set[str], unit_ids: Set[str]
    ) -> None:
        self._chunker: Chunker[str] = Chunker(max_units, overlap_units)
        self._chunk_ids = chunk_ids
        self._unit_ids = unit_ids
        self.chunks: dict[str, ChunkSpan] = {}
        self.positions: dict[str, int] = {}
        self.unit_count = 0

    def tap(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        add_many = self._chunker.add_many
        wanted = self._unit_ids
        positions = self.positions
        for batch in batches:
            ids = batch.ids
            if not wanted.isdisjoint(ids):
                base = self.unit_count
                for offset, unit_id in enumerate(ids):
                    if unit_id in wanted:
                        positions[unit_id] = base + offset
            self.unit_count += len(ids)
            self._keep(add_many(ids))
            yield batch
        self._keep(self._chunker.finish())

    def _keep(self, chunks: Iterable[Chunk[str]]) -> None:
        for chunk in chunks:
            if chunk.chunk_id in self._chunk_ids:
                start = chunk.start_position
                self.chunks[chunk.chunk_id] = ChunkSpan(
                    chunk.chunk_id, start, start + len(chunk.items) - 1
                )

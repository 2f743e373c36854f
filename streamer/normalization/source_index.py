"""The one pass over the source document that normalization needs.

``SourceIndexTap.tap(batches)`` passes batches of validated units through unchanged,
feeding their unit IDs to the framework's streaming ``Chunker`` (exactly the chunk plan
of ``streamer chunk`` and the bundle's chunk map) and keeping only what the candidates
ask about: the span of each chunk a candidate names, and the document position of each
unit ID a candidate cites. Memory is bounded by the candidates, not by the transcript.

For the support check, it also keeps the text and speaker of every unit inside a cited
range (``ranges``: start unit ID -> end unit IDs). A range is read from its start unit to
its end unit, and at most ``max_units`` units: a longer one cannot lie inside a chunk and
is rejected by grounding; a reversed one (its end seen first) is not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass

from msgspec import UNSET

from streamer.framework.chunking.chunker import Chunk, Chunker
from streamer.framework.source.units import Batch
from streamer.normalization.support import CitedUnit


@dataclass(frozen=True)
class ChunkSpan:
    """A chunk of the plan: its ID and its first and last document positions."""

    chunk_id: str
    start: int
    end: int


class SourceIndexTap:
    """Collects the spans of ``chunk_ids`` and the positions of ``unit_ids``."""

    def __init__(
        self,
        max_units: int,
        overlap_units: int,
        chunk_ids: Set[str],
        unit_ids: Set[str],
        ranges: Mapping[str, Set[str]] | None = None,
    ) -> None:
        self._chunker: Chunker[str] = Chunker(max_units, overlap_units)
        self._max_units = max_units
        self._chunk_ids = chunk_ids
        self._unit_ids = unit_ids
        self._ranges: Mapping[str, Set[str]] = ranges or {}
        self._open: dict[str, int] = {}  # end unit ID -> position of the latest start
        self.chunks: dict[str, ChunkSpan] = {}
        self.positions: dict[str, int] = {}
        self.units: dict[int, CitedUnit] = {}
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
            if self._open or not self._ranges.keys().isdisjoint(ids):
                self._read(batch)
            self.unit_count += len(ids)
            self._keep(add_many(ids))
            yield batch
        self._keep(self._chunker.finish())

    def _read(self, batch: Batch) -> None:
        """Keep the units of ``batch`` that lie inside a cited range."""
        opened, ranges, positions = self._open, self._ranges, self.positions
        base = self.unit_count
        for offset, unit_id in enumerate(batch.ids):
            position = base + offset
            single = False
            for end_id in ranges.get(unit_id, ()):
                end = positions.get(end_id)
                if end == position:
                    single = True
                elif end is None or end > position:
                    opened[end_id] = position
            for end_id, start in list(opened.items()):
                if position - start >= self._max_units:
                    del opened[end_id]
            if single or opened:
                unit = batch.units[offset]
                metadata = unit.metadata
                speaker = (
                    None if metadata is UNSET or metadata.speaker is UNSET else metadata.speaker
                )
                self.units[position] = CitedUnit(unit.text, speaker)
            opened.pop(unit_id, None)

    def _keep(self, chunks: Iterable[Chunk[str]]) -> None:
        for chunk in chunks:
            if chunk.chunk_id in self._chunk_ids:
                start = chunk.start_position
                self.chunks[chunk.chunk_id] = ChunkSpan(
                    chunk.chunk_id, start, start + len(chunk.items) - 1
                )

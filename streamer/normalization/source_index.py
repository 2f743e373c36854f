"""The one pass over the source document that normalization needs (``SourceIndexTap``), or,
for the document ``streamer run`` accepted and extraction indexed, no pass: the same spans,
positions and cited ranges read by position (``AcceptedIndex``).

``SourceIndexTap.tap(batches)`` passes batches of validated units through unchanged,
feeding their unit IDs to the framework's streaming ``Chunker`` (exactly the chunk plan
of ``streamer chunk`` and the bundle's chunk map) and keeping only what the candidates
ask about: the span of each chunk a candidate names, and the document position of each
unit ID a candidate cites. Memory is bounded by the candidates, not by the transcript.

For the support check, it also hands each cited range (``ranges``: start unit ID -> end
unit IDs) to ``read`` once the pass reaches its end unit: the text and speaker of its units,
kept only while a range holding them is open. A range is read from its start unit to its
end unit, at most ``max_units`` units (a longer one cannot lie inside a chunk and is
rejected by grounding); a reversed one (its end seen first) is not read. Memory: the open
ranges, never the transcript.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from itertools import compress, count

from msgspec import UNSET

from streamer.framework.chunking.chunker import Chunk, Chunker, chunk_span
from streamer.framework.source.accepted import UnitsByPosition
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import Batch
from streamer.normalization.support import CitedUnit, Pair

ReadRange = Callable[[Pair, Sequence[CitedUnit]], None]


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
        read: ReadRange | None = None,
    ) -> None:
        self._chunker: Chunker[str] = Chunker(max_units, overlap_units)
        self._max_units = max_units
        self._chunk_ids = chunk_ids
        self._unit_ids = frozenset(unit_ids)
        self._ranges: Mapping[str, Set[str]] = ranges or {}
        self._read_range: ReadRange = read or (lambda pair, units: None)
        self._open: dict[str, dict[str, int]] = {}  # end ID -> start ID -> start position
        self._units: dict[int, CitedUnit] = {}  # the units of the open ranges, by position
        self.chunks: dict[str, ChunkSpan] = {}
        self.positions: dict[str, int] = {}
        self.unit_count = 0

    def tap(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        add_many = self._chunker.add_many
        wanted = self._unit_ids
        positions = self.positions
        is_start = self._ranges.__contains__
        for batch in batches:
            ids = batch.ids
            # the lookups by unit ID in C: each ID is hashed once, in the intersection
            hits = wanted.intersection(ids)
            if hits:
                base = self.unit_count
                for offset in compress(count(), map(hits.__contains__, ids)):
                    positions[ids[offset]] = base + offset
            starts = list(compress(count(), map(is_start, ids))) if self._ranges else []
            if self._open or starts:
                self._read(batch, starts)
            self.unit_count += len(ids)
            self._keep(add_many(ids))
            yield batch
        self._keep(self._chunker.finish())
        self._open.clear()  # ranges whose end never came: not read (grounding rejects them)
        self._units.clear()

    def _read(self, batch: Batch, starts: list[int]) -> None:
        """Open, keep and read the cited ranges through the units of ``batch``, whose
        range starts are at ``starts``: from one range start to the next while none is
        open, and unit by unit while one is (its units taken from the batch a chunk's
        length at a time: a batch may decode its units only when they are taken)."""
        opened, ranges, positions, kept = self._open, self._ranges, self.positions, self._units
        base = self.unit_count
        ids = batch.ids
        following = iter(starts)
        taken: Sequence[SourceUnit] = ()
        taken_from = 0
        offset = 0
        while offset < len(ids):
            if not opened:  # nothing to keep before the next range start
                offset = next((at for at in following if at >= offset), len(ids))
                if offset == len(ids):
                    break
            unit_id = ids[offset]
            position = base + offset
            for end_id in ranges.get(unit_id, ()):
                end = positions.get(end_id)
                if end is None or end >= position:
                    opened.setdefault(end_id, {})[unit_id] = position
            if not opened:
                offset += 1
                continue
            if not taken_from <= offset < taken_from + len(taken):
                taken_from, taken = offset, batch.units[offset : offset + self._max_units]
            unit = taken[offset - taken_from]
            metadata = unit.metadata
            speaker = None if metadata is UNSET or metadata.speaker is UNSET else metadata.speaker
            kept[position] = CitedUnit(unit.text, speaker)
            starts_here = opened.pop(unit_id, None)
            if starts_here is not None:
                for start_id, start in starts_here.items():
                    units = [kept[at] for at in range(start, position + 1)]
                    self._read_range((start_id, unit_id), units)
            self._forget(position)
            offset += 1

    def _forget(self, position: int) -> None:
        """Close the ranges longer than a chunk; forget the units no open range holds."""
        opened = self._open
        for end_id in list(opened):
            starts = opened[end_id]
            for start_id in [s for s, at in starts.items() if position - at >= self._max_units - 1]:
                del starts[start_id]
            if not starts:
                del opened[end_id]
        first = min((at for starts in opened.values() for at in starts.values()), default=None)
        kept = self._units  # in position order: forget from the front
        while kept:
            at = next(iter(kept))
            if first is not None and at >= first:
                break
            del kept[at]

    def _keep(self, chunks: Iterable[Chunk[str]]) -> None:
        for chunk in chunks:
            if chunk.chunk_id in self._chunk_ids:
                start = chunk.start_position
                self.chunks[chunk.chunk_id] = ChunkSpan(
                    chunk.chunk_id, start, start + len(chunk.items) - 1
                )


class AcceptedIndex:
    """What ``SourceIndexTap`` collects, for the document ``streamer run`` accepted, read
    through its complete index (``UnitsByPosition``) instead of a pass over every unit:
    the spans of ``chunk_ids`` from the chunk plan's arithmetic (``chunk_span``: the same
    spans the ``Chunker`` cuts), the position of each unit ID a candidate cites looked up
    among the unit IDs of the chunk that candidate names (``cited``: chunk ID -> unit
    IDs), and each cited range read from the blocks that hold its units. A cited unit ID
    not found in its chunk (a reference outside it, or to no unit) is looked up in every
    block, as the pass does: the same positions, the same ranges read, with the same
    units (a range in document order, at most ``max_units`` units, a reversed one not
    read). Memory: the cited units, never the transcript."""

    def __init__(
        self,
        units: UnitsByPosition,
        max_units: int,
        overlap_units: int,
        cited: Mapping[str, Collection[str]],
        ranges: Mapping[str, Set[str]] | None = None,
        read: ReadRange | None = None,
    ) -> None:
        self.unit_count = units.unit_count
        self.chunks: dict[str, ChunkSpan] = {}
        for chunk_id in cited:
            span = chunk_span(chunk_id, units.unit_count, max_units, overlap_units)
            if span is not None:
                self.chunks[chunk_id] = ChunkSpan(chunk_id, *span)
        found = self._find(units, cited, ranges or {})
        self.positions: dict[str, int] = {}
        for ids in cited.values():
            for unit_id in ids:
                position = found.get(unit_id)
                if position is not None:
                    self.positions[unit_id] = position
        if ranges and read is not None:
            self._read(units, max_units, ranges, found, read)

    def _find(
        self,
        units: UnitsByPosition,
        cited: Mapping[str, Collection[str]],
        ranges: Mapping[str, Set[str]],
    ) -> dict[str, int]:
        found: dict[str, int] = {}
        for span in sorted(self.chunks.values(), key=lambda span: span.start):
            window = units.ids(span.start, span.end + 1)
            for unit_id in cited[span.chunk_id]:
                if unit_id not in found:
                    with contextlib.suppress(ValueError):  # not in its chunk
                        found[unit_id] = span.start + window.index(unit_id)
        missing = {unit_id for ids in cited.values() for unit_id in ids}
        missing.update(ranges)
        missing.update(end for ends in ranges.values() for end in ends)
        missing.difference_update(found)
        if missing:  # every block's IDs, as the pass reads them
            wanted = frozenset(missing)
            for number in range(len(units.index)):
                _, _, first, ids = units.index.block(number)
                hits = wanted.intersection(ids)
                if hits:
                    for offset in compress(count(), map(hits.__contains__, ids)):
                        found[ids[offset]] = first + offset
        return found

    def _read(
        self,
        units: UnitsByPosition,
        max_units: int,
        ranges: Mapping[str, Set[str]],
        found: Mapping[str, int],
        read: ReadRange,
    ) -> None:
        spans = []  # (start, end, start ID, end ID) of each range to read
        for start_id, ends in ranges.items():
            start = found.get(start_id)
            if start is None:
                continue
            for end_id in ends:
                end = found.get(end_id)
                if end is not None and 0 <= end - start < max_units:
                    spans.append((start, end, start_id, end_id))
        spans.sort()
        kept: dict[int, CitedUnit] = {}  # by position, from the current range's start on
        for start, end, start_id, end_id in spans:
            for position in [at for at in kept if at < start]:
                del kept[position]
            following = max(kept, default=start - 1) + 1
            if following <= end:
                for position, unit in enumerate(units.units(following, end + 1), following):
                    metadata = unit.metadata
                    speaker = (
                        None if metadata is UNSET or metadata.speaker is UNSET else metadata.speaker
                    )
                    kept[position] = CitedUnit(unit.text, speaker)
            read((start_id, end_id), [kept[at] for at in range(start, end + 1)])

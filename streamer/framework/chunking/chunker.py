"""Extraction chunks: the source document cut into windows of at most ``max_units`` units,
consecutive chunks sharing ``overlap_units`` units.

Chunk ``k`` starts at position ``k * (max_units - overlap_units)``. A chunk is made only
while it holds at least one unit that the previous chunk did not, so the last chunk may
be shorter and no chunk is a tail of its predecessor. The ``Chunker`` works on a stream
and holds at most ``max_units`` items.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Chunk(Generic[T]):
    """One chunk: its ID, its first position and its items (units or unit IDs)."""

    chunk_id: str
    start_position: int
    items: tuple[T, ...]


def chunk_id(index: int) -> str:
    return f"chunk-{index + 1:06d}"


CHUNK_PREFIX = "chunk-"


def chunk_span(
    name: str, unit_count: int, max_units: int, overlap_units: int
) -> tuple[int, int] | None:
    """The first and last positions of the chunk ``name`` among the chunks a ``Chunker``
    cuts ``unit_count`` units into, without cutting them; ``None`` when it cuts no chunk
    of that ID. Chunk ``k`` starts at ``k * (max_units - overlap_units)`` and ends
    ``max_units - 1`` later, or at the last unit (the last chunk)."""
    digits = name[len(CHUNK_PREFIX) :]
    if not name.startswith(CHUNK_PREFIX) or not (digits.isascii() and digits.isdigit()):
        return None
    index = int(digits) - 1
    if index < 0 or chunk_id(index) != name:  # another spelling of the number
        return None
    step = max_units - overlap_units
    start = index * step
    if start >= unit_count or (index and start + overlap_units >= unit_count):
        return None  # past the last unit, or a tail of its predecessor (never made)
    return start, min(start + max_units - 1, unit_count - 1)


class Chunker(Generic[T]):
    """Feed items in document order with ``add``; completed chunks come out as they close."""

    def __init__(self, max_units: int, overlap_units: int) -> None:
        if max_units < 1 or not 0 <= overlap_units < max_units:
            raise ValueError("need max_units >= 1 and 0 <= overlap_units < max_units")
        self._max = max_units
        self._step = max_units - overlap_units
        self._window: deque[T] = deque(maxlen=max_units)
        self._next_start = 0  # position where the next chunk starts
        self._position = -1  # position of the last item added
        self._last_end = -1  # end position of the last chunk made
        self._index = 0

    def add(self, item: T) -> Iterator[Chunk[T]]:
        self._position += 1
        self._window.append(item)
        if self._position == self._next_start + self._max - 1:
            yield self._make(self._position)

    def add_many(self, items: Sequence[T]) -> list[Chunk[T]]:
        """Add a batch of items at once; the chunks it closes, in order. Same chunks as
        ``add`` item by item, with the per-item work done by list slicing."""
        window = self._window
        buffer = [*window, *items]
        offset = self._position + 1 - len(window)  # position of buffer[0]
        self._position += len(items)
        made: list[Chunk[T]] = []
        while self._next_start + self._max - 1 <= self._position:
            start = self._next_start
            end = start + self._max - 1
            made.append(
                Chunk(
                    chunk_id(self._index), start, tuple(buffer[start - offset : end + 1 - offset])
                )
            )
            self._index += 1
            self._last_end = end
            self._next_start = start + self._step
        window.extend(items)
        return made

    def finish(self) -> Iterator[Chunk[T]]:
        """The last, shorter chunk, if units remain that no chunk holds yet."""
        if self._position > self._last_end:
            yield self._make(self._position)

    def _make(self, end: int) -> Chunk[T]:
        start = self._next_start
        items = tuple(self._window)[-(end - start + 1) :]
        chunk = Chunk(chunk_id(self._index), start, items)
        self._index += 1
        self._last_end = end
        self._next_start = start + self._step
        return chunk

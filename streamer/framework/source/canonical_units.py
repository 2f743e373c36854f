"""The units of a task of ``--jobs`` kept as their canonical lines and decoded on demand
(``CanonicalUnits``): the main process hashes every line but decodes only the units it
publishes (``source.parallel``)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import overload

import msgspec

from streamer.framework.source.source_unit import SourceUnit

Marks = tuple[Sequence[int], Sequence[int]]  # ``LineMarks``: line indexes, byte offsets


class CanonicalUnits(Sequence[SourceUnit]):
    """The units of a task, kept as their canonical lines (in ``data``, from ``start``,
    ``size`` bytes) and decoded on demand: the units of a slice are decoded when the
    slice is taken. Where a line starts is searched for from the last line found
    (``line_start``), never listed for the whole task."""

    _decoder = msgspec.json.Decoder(list[SourceUnit])

    def __init__(
        self,
        data: bytes | bytearray,
        start: int,
        size: int,
        count: int,
        marks: Marks | None = None,
    ) -> None:
        self._data = data
        self._start = start
        self._end = start + size
        self._count = count
        # where some lines start (``LineMarks``: line indexes, byte offsets from start)
        self._marks = marks or ([0], [0])
        self._known = (0, start)  # a line and where it starts (the last found)

    def __len__(self) -> int:
        return self._count

    def line_start(self, line: int) -> int:
        """Where line ``line`` starts in ``data`` (``len(self)``: the end), found from
        the nearest line known before it (the last found, or a mark) by one search a
        line (``find`` is a ``memchr``: faster than counting newlines, which CPython does
        a byte at a time)."""
        if line >= self._count:
            return self._end
        known, position = self._known
        lines, offsets = self._marks
        mark = bisect.bisect_right(lines, line) - 1
        if not known <= line or lines[mark] > known:
            known, position = lines[mark], self._start + offsets[mark]
        find = self._data.index
        while known < line:
            position = find(b"\n", position) + 1
            known += 1
        self._known = (known, position)
        return position

    @overload
    def __getitem__(self, index: int) -> SourceUnit: ...

    @overload
    def __getitem__(self, index: slice) -> list[SourceUnit]: ...

    def __getitem__(self, index: int | slice) -> SourceUnit | list[SourceUnit]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:  # pragma: no cover - the projector takes runs
                return [self[i] for i in range(start, stop, step)]
            if start >= stop:
                return []
            first = self.line_start(start)
            end = self.line_start(stop)
            lines = bytes(memoryview(self._data)[first : end - 1])
            return self._decoder.decode(b"[" + lines.replace(b"\n", b",") + b"]")
        if not -len(self) <= index < len(self):
            raise IndexError("unit index out of range")
        return self[index : index + 1 if index != -1 else None][0]

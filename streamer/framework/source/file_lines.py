"""The lines of a regular file after its header, read by offset (``os.pread``): by the
workers of ``--jobs``, each the lines of its task's range, and by the main process as
``--jobs 1`` reads them when it reads on after a task that failed (``source.parallel``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from streamer.framework.source.json_lines import line_blocks

_LINE_END_READ = 1 << 12  # read past a task's end to find where its last line ends
_LAST_READ = 1 << 19  # the last task, to the end of the file, is read so many bytes at once


class FileLines:
    """The lines of a regular file after its header (from ``units_start``), read by
    offset (``os.pread``: the descriptor's position is never moved, so forked workers
    share it). ``read_ahead``: the bytes after the header that the reader of the head
    read (``head.Replay``: replayed by the first reads of ``--jobs 1``)."""

    def __init__(self, descriptor: int, units_start: int, read_ahead: int = 0) -> None:
        self.descriptor = descriptor
        self.units_start = units_start
        self.read_ahead = read_ahead
        # told how far the lines taken back reach (a progress line), when given
        self.reached: Callable[[int], None] | None = None

    def read(self, offset: int, size: int) -> bytes:
        """``size`` bytes at ``offset``, fewer at the end of the file."""
        parts = []
        while size > 0:
            part = os.pread(self.descriptor, size, offset)
            if not part:
                break
            parts.append(part)
            offset += len(part)
            size -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def first_line(self, start: int) -> int:
        """Where the first line that starts at or after ``start`` starts (or where the
        file ends)."""
        if start <= self.units_start:
            return self.units_start
        position = start - 1  # a line starts at ``start`` when a newline ends the one before
        while True:
            data = self.read(position, _LINE_END_READ)
            found = data.find(b"\n")
            if found >= 0:
                return position + found + 1
            if len(data) < _LINE_END_READ:
                return position + len(data)
            position += len(data)

    def lines(self, start: int, end: int, last: bool) -> tuple[bytes, int]:
        """The lines that start in ``[start, end)`` (``last``: every line from
        ``start`` to the end of the file): the first so many bytes of a buffer."""
        first = self.first_line(start)
        if last:
            parts = []
            while part := self.read(first, _LAST_READ):
                parts.append(part)
                first += len(part)
            data = b"".join(parts)
            return data, len(data)
        if first >= end:
            return b"", 0
        data = self.read(first, end - first + _LINE_END_READ)
        found = data.find(b"\n", end - 1 - first)
        while found < 0:  # the last line goes on: read on, twice as much each time
            more = self.read(first + len(data), max(len(data), _LINE_END_READ))
            if not more:
                return data, len(data)
            searched = len(data)
            data += more
            found = data.find(b"\n", searched)
        return data, found + 1

    def blocks(self, buffer_size: int) -> Iterator[bytes | memoryview]:
        """The lines after the header in the blocks of whole lines ``--jobs 1`` reads
        (``line_blocks`` of ``buffer_size``), each starting where the one before ends."""
        return line_blocks(_PositionedReader(self), buffer_size)


class _PositionedReader:
    """A raw stream reading the lines of a file by ``os.pread`` as ``--jobs 1`` reads
    them (``head.Replay``): no read runs past the bytes the head's reader read ahead,
    every other read is whole, as a regular file gives it. So ``line_blocks`` cuts the
    blocks of ``--jobs 1`` from it."""

    def __init__(self, lines: FileLines) -> None:
        self._lines = lines
        self.offset = lines.units_start
        self._replayed = lines.units_start + lines.read_ahead

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        if self.offset < self._replayed:
            size = min(size, self._replayed - self.offset)
        data = self._lines.read(self.offset, size)
        buffer[: len(data)] = data
        self.offset += len(data)
        return len(data)

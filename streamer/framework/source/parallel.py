"""A JSON Lines source document parsed by several processes (``--jobs N``), with the
result of one.

The lines after the header are cut into tasks of about ``TASK_SIZE`` bytes, each parsed
and validated by ``JsonLinesParser`` in one of N - 1 worker processes or in the main
process itself (an ``OrderedPool`` mapped with ``local``, ``framework.ordered_pool``:
results taken back in task order; the main process takes the next task while its own
work leaves it time and every worker has work), so ``--jobs N`` keeps N cores busy.
Two ways to hand a task over (the JSON form is read in the main process: where its quick
way cuts a buffer depends on how the items before the cut decode):

- ``file_batches``: the source is a regular file. A task is a range of byte offsets, and
  the worker reads the lines that start in it from the file itself (``os.pread`` on the
  descriptor it inherited): the main process reads nothing, copies nothing, writes no
  data to a pipe.
- ``parallel_batches``: any other stream (a pipe). The main process reads the blocks of
  whole lines as it does alone and writes each task's bytes to a worker.

A worker returns the canonical lines of the task's units (what the semantic digest
hashes), their unit IDs and, when the reader was given the unit IDs its consumer looks
for (``wanted``: the projector's referenced IDs), where those are (``Hits``); or that the
task failed. The main process hashes the lines in document order and decodes from them
only the units it publishes (``CanonicalUnits``), the IDs only when asked.

Every error is the one the main process alone gives. With a pipe, a task that failed in
a worker (or whose parse depends on what came before it: a blank line before it) is
parsed again in the main process, block by block, by the same code. With a file, the
main process reads on from the block of ``--jobs 1`` that holds the task's first line,
in the blocks ``--jobs 1`` reads, with the parser state ``--jobs 1`` has there (line
number, blank line), to the end of the document. An error of the reading itself is
raised only once the tasks before it have been taken back. So ``--jobs N`` publishes the
bytes and fails with the messages of ``--jobs 1``.
"""

from __future__ import annotations

import array
import bisect
import collections
import functools
import itertools
import os
import struct
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.ordered_pool import OrderedPool, Task
from streamer.framework.source.json_lines import JsonLinesParser, ParsedBlock, line_blocks
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.units import Batch, Hits, LineMarks

MAX_JOBS = 64
TASK_SIZE = 1 << 19  # the bytes handed to a worker at once
PART_SIZE = 1 << 17  # and parsed by it a part at a time
_LINE_END_READ = 1 << 12  # read past a task's end to find where its last line ends


# A worker's result: ok, units, lines (of the task), blank (the first blank line, 1 for
# the task's first, 0: none), then the sizes of the canonical lines of the units (each
# ending with a newline: what the semantic digest hashes), of the unit IDs and of the
# hits (msgpack), and the number of line marks (``LineMarks``: line index and byte
# offset, 8 bytes each), which follow. Where any other line starts is found by the main
# process from the mark before it, only where it publishes (``CanonicalUnits``).
_RESULT = struct.Struct("<?QQQQQQQ")
_FAILED = _RESULT.pack(False, 0, 0, 0, 0, 0, 0, 0)
_RANGE = struct.Struct("<QQ?")  # a task of a file: its start and end offsets, whether last
_encoder = msgspec.msgpack.Encoder()
_ids_decoder = msgspec.msgpack.Decoder(list[str])
_hits_decoder = msgspec.msgpack.Decoder(list[tuple[int, str]])


def _result(
    batches: list[ParsedBlock],
    lines: int,
    blank: int,
    wanted: frozenset[str] | None,
    marks: LineMarks,
) -> list[bytes | memoryview]:
    units = sum(len(batch[0]) for batch in batches)
    if not units:
        return [_RESULT.pack(True, 0, lines, blank, 0, 0, 0, 0)]
    canonical = [batch[1] for batch in batches]  # written one after the other: not joined
    ids = list(itertools.chain.from_iterable(batch[2] for batch in batches))
    encoded = _encoder.encode(ids)
    found = b""
    if wanted is not None:
        found = _encoder.encode(find_hits(wanted, ids))
    size = sum(map(len, canonical))
    count = len(marks.lines)
    head = _RESULT.pack(True, units, lines, blank, size, len(encoded), len(found), count)
    marked = [memoryview(marks.lines), memoryview(marks.offsets)]
    return [head, *canonical, encoded, found, *marked]


def find_hits(wanted: frozenset[str], ids: list[str]) -> list[tuple[int, str]]:
    """Where the IDs of ``wanted`` are among ``ids``: (offset, ID), in order (each ID
    hashed once: by the intersection, which keeps its hash for the second look)."""
    hits = wanted.intersection(ids)
    if not hits:
        return []
    offsets = itertools.compress(itertools.count(), map(hits.__contains__, ids))
    return [(offset, ids[offset]) for offset in offsets]


def parse_lines(
    block: bytes | bytearray, wanted: frozenset[str] | None, size: int = -1
) -> list[bytes | memoryview]:
    """A worker's work on a task's lines (the first ``size`` bytes of ``block``; -1: all
    of it): parse and validate them in parts of about ``PART_SIZE`` bytes of whole lines
    (what the caches hold best; where it is cut changes nothing but the place of an
    error, and a task that fails is parsed again by the main process)."""
    try:
        marks = LineMarks()
        parser = JsonLinesParser(first_line=1, marks=marks)
        batches: list[ParsedBlock] = []
        start, size = 0, len(block) if size < 0 else size
        view = memoryview(block)  # parts are views: no copy
        while start < size:
            end = block.find(b"\n", start + PART_SIZE - 1, size)
            end = size if end < 0 else end + 1
            batches += parser.parse(view[start:end])
            start = end
        return _result(batches, parser.next_line - 1, parser.blank, wanted, marks)
    except Exception:  # parsed again by the main process, which raises in its place
        return [_FAILED]


def parse_block(
    kind: int, data: bytearray, wanted: frozenset[str] | None = None
) -> list[bytes | memoryview]:
    """A worker's work on a task written to it: the task's lines themselves."""
    return parse_lines(data, wanted)


def parse_range(
    kind: int, data: bytearray, source: FileLines, wanted: frozenset[str] | None = None
) -> list[bytes | memoryview]:
    """A worker's work on a task of a file: the lines that start in the task's range,
    read from the file."""
    try:
        start, end, last = _RANGE.unpack(data)
        lines, size = source.lines(start, end, last)
    except Exception:  # read again by the main process, which raises in its place
        return [_FAILED]
    return parse_lines(lines, wanted, size)


class _Parsed:
    """A worker's result, read without copying its canonical lines."""

    def __init__(self, result: bytearray) -> None:
        view = memoryview(result)
        head = _RESULT.size
        self.ok, self.units, self.lines, self.blank, size, ids, hits, marks = _RESULT.unpack_from(
            view
        )
        self.result = result
        self.start = head
        self.canonical = view[head : head + size]
        self._ids = view[head + size : head + size + ids]
        self._hits = view[head + size + ids : head + size + ids + hits]
        at = head + size + ids + hits
        self.marks = (array.array("q"), array.array("q"))
        self.marks[0].frombytes(view[at : at + 8 * marks])
        self.marks[1].frombytes(view[at + 8 * marks : at + 16 * marks])

    def ids(self) -> Sequence[str]:
        return _EncodedIds(self._ids, self.units)

    def hits(self, wanted: frozenset[str] | None) -> Hits | None:
        if wanted is None:
            return None
        return Hits(wanted, _hits_decoder.decode(self._hits))


class _EncodedIds(Sequence[str]):
    """The unit IDs of a task, decoded when first read (``evidence`` reads them only
    where it publishes; a chunk map reads them all)."""

    def __init__(self, encoded: memoryview, count: int) -> None:
        self._encoded: memoryview | None = encoded
        self._count = count
        self._ids: list[str] = []

    def _decoded(self) -> list[str]:
        if self._encoded is not None:
            self._ids = _ids_decoder.decode(self._encoded)
            self._encoded = None
        return self._ids

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._decoded()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())


class CanonicalUnits(Sequence[SourceUnit]):
    """The units of a task, kept as their canonical lines (in ``data``, from ``start``,
    ``size`` bytes) and decoded on demand: the units of a slice are decoded when the
    slice is taken. Where a line starts is searched for from the last line found
    (``_line_start``), never listed for the whole task."""

    _decoder = msgspec.json.Decoder(list[SourceUnit])

    def __init__(
        self,
        data: bytes | bytearray,
        start: int,
        size: int,
        count: int,
        marks: tuple[array.array[int], array.array[int]] | None = None,
    ) -> None:
        self._data = data
        self._start = start
        self._end = start + size
        self._count = count
        # where some lines start (``LineMarks``: line indexes, byte offsets from start)
        self._marks = marks or (array.array("q", [0]), array.array("q", [0]))
        self._known = (0, start)  # a line and where it starts (the last found)

    def __len__(self) -> int:
        return self._count

    def _line_start(self, line: int) -> int:
        """Where line ``line`` starts (``len(self)``: the end), found from the nearest
        line known before it (the last found, or a mark) by one search a line (``find``
        is a ``memchr``: faster than counting newlines, which CPython does a byte at a
        time)."""
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
            first = self._line_start(start)
            end = self._line_start(stop)
            lines = bytes(memoryview(self._data)[first : end - 1])
            return self._decoder.decode(b"[" + lines.replace(b"\n", b",") + b"]")
        if not -len(self) <= index < len(self):
            raise IndexError("unit index out of range")
        return self[index : index + 1 if index != -1 else None][0]


def _tasks(
    blocks_read: Iterable[bytes | memoryview], cuts: collections.deque[list[int]]
) -> Iterator[Task]:
    """The blocks, joined into tasks of about ``TASK_SIZE`` bytes; the sizes of each
    task's blocks are appended to ``cuts``."""
    blocks: list[bytes | memoryview] = []
    size = 0
    for block in blocks_read:
        blocks.append(block)
        size += len(block)
        if size >= TASK_SIZE:
            cuts.append([len(b) for b in blocks])
            yield b"l ", b"".join(blocks)
            blocks, size = [], 0
    if blocks:
        cuts.append([len(b) for b in blocks])
        yield b"l ", b"".join(blocks)


class _Feed:
    """What the main process knows as the results come back in order: the next line's
    number, the first blank line (which must end the document), the units counted."""

    def __init__(self, digest: SemanticDigest, wanted: frozenset[str] | None) -> None:
        self.digest = digest
        self.wanted = wanted
        self.line = 2  # the first line of the next task
        self.blank = 0
        self.count = 0

    def accepts(self, parsed: _Parsed) -> bool:
        """Whether the worker's result stands (else the task is parsed again here)."""
        return bool(parsed.ok) and not (self.blank and parsed.units)

    def take(self, parsed: _Parsed) -> Batch | None:
        """The batch of an accepted result (``None``: it has no unit)."""
        if parsed.blank and not self.blank:
            self.blank = self.line + parsed.blank - 1
        self.line += parsed.lines
        if not parsed.units:
            return None
        self.digest.add_canonical_lines(parsed.canonical)
        self.count += parsed.units
        size = len(parsed.canonical)
        units = CanonicalUnits(parsed.result, parsed.start, size, parsed.units, parsed.marks)
        return Batch(units, parsed.ids(), parsed.hits(self.wanted))

    def batches(self, parsed: Iterable[ParsedBlock]) -> Iterator[Batch]:
        """The batches of blocks parsed in this process."""
        for units, lines, ids in parsed:
            self.digest.add_canonical_lines(lines)
            self.count += len(units)
            hits = None if self.wanted is None else Hits(self.wanted, find_hits(self.wanted, ids))
            yield Batch(units, ids, hits)


def parallel_batches(
    blocks: Iterable[bytes | memoryview],
    digest: SemanticDigest,
    jobs: int,
    wanted: frozenset[str] | None = None,
) -> Generator[Batch, None, int]:
    """The batches of ``blocks`` (whole lines of JSON Lines after the header, as
    ``json_lines.line_blocks`` reads them), each task (blocks, joined) parsed
    by one of ``jobs - 1`` worker processes or by this one, its canonical lines added to
    ``digest`` in document order; returns the unit count.

    A task succeeds exactly when each of its blocks would, with the same units and lines
    (a block's parse depends only on the lines before it through a blank line); when it
    fails, its blocks are parsed in this process one by one, as ``--jobs 1`` parses them,
    which raises the error ``--jobs 1`` raises."""
    feed = _Feed(digest, wanted)
    cuts: collections.deque[list[int]] = collections.deque()
    work = functools.partial(parse_block, wanted=wanted)
    with OrderedPool(jobs - 1, work) as pool:
        for (_, data), result in pool.map(_tasks(blocks, cuts), local=True):
            parsed = _Parsed(result)
            sizes = cuts.popleft()
            if not feed.accepts(parsed):
                parser = JsonLinesParser(first_line=feed.line, blank=feed.blank)
                start = 0
                for size in sizes:
                    yield from feed.batches(list(parser.parse(data[start : start + size])))
                    start += size
                feed.line, feed.blank = parser.next_line, parser.blank
                continue
            batch = feed.take(parsed)
            if batch is not None:
                yield batch
    return feed.count


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
            while part := self.read(first, TASK_SIZE):
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


def _ranges(lines: FileLines, size: int) -> Iterator[Task]:
    """The tasks of a file of ``size`` bytes: ranges of ``TASK_SIZE`` bytes, the last to
    the end of the file (whatever its size by then)."""
    start = lines.units_start
    while start + TASK_SIZE < size:
        yield b"r ", _RANGE.pack(start, start + TASK_SIZE, False)
        start += TASK_SIZE
    yield b"r ", _RANGE.pack(start, start, True)


def file_batches(
    lines: FileLines,
    digest: SemanticDigest,
    jobs: int,
    buffer_size: int,
    wanted: frozenset[str] | None = None,
) -> Generator[Batch, None, int]:
    """The batches of the lines of a regular file (``lines``), each task a range of its
    bytes read and parsed by one of ``jobs - 1`` worker processes or by this one, its
    canonical lines added to ``digest`` in document order; returns the unit count.

    When a task fails (or a blank line came before it), this process reads on from the
    block of ``--jobs 1`` (``line_blocks`` of ``buffer_size``) holding the task's first
    line, with ``--jobs 1``'s parser state there, to the end: every line before that was
    accepted, so it raises the error ``--jobs 1`` raises."""
    feed = _Feed(digest, wanted)
    size = os.fstat(lines.descriptor).st_size
    work = functools.partial(parse_range, source=lines, wanted=wanted)
    with OrderedPool(jobs - 1, work) as pool:
        for (_, data), result in pool.map(_ranges(lines, size), local=True):
            parsed = _Parsed(result)
            start, end, last = _RANGE.unpack(data)
            if not feed.accepts(parsed):
                break
            if lines.reached is not None:
                lines.reached(size if last else end)
            batch = feed.take(parsed)
            if batch is not None:
                yield batch
        else:
            return feed.count
    yield from _read_on(lines, lines.first_line(start), feed, buffer_size)
    return feed.count


def _read_on(lines: FileLines, start: int, feed: _Feed, buffer_size: int) -> Iterator[Batch]:
    """The rest of the file from the line at ``start`` (the first not yet taken), read
    and parsed in this process as ``--jobs 1`` reads it: from the block that holds it."""
    blocks = line_blocks(_PositionedReader(lines), buffer_size)
    position = lines.units_start
    for block in blocks:
        end = position + len(block)
        if end <= start:
            position = end
            continue
        before = memoryview(block)[: start - position]  # lines taken from the workers
        overlap = bytes(before).count(b"\n")
        first_line = feed.line - overlap
        blank = feed.blank if feed.blank and feed.blank < first_line else 0
        parser = JsonLinesParser(first_line=first_line, blank=blank)
        for units, canonical, ids in parser.parse(block):
            skip = min(overlap, len(units))
            if skip:
                cut = CanonicalUnits(canonical, 0, len(canonical), len(units))._line_start(skip)
                units, canonical, ids = units[skip:], canonical[cut:], ids[skip:]
            if units:
                yield from feed.batches([(units, canonical, ids)])
        for block in blocks:
            yield from feed.batches(parser.parse(block))
        return

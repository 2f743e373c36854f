"""A JSON Lines source document parsed by worker processes (``--jobs N``), with the
result of one.

The main process reads the document as it does alone: the header and the blocks of whole
lines of JSON Lines (the JSON form is read in the main process: where its quick way cuts a
buffer depends on how the items before the cut decode). The blocks are joined into tasks
of about ``TASK_SIZE`` bytes, each parsed and validated by ``JsonLinesParser`` in one of N
worker processes (an ``OrderedPool``, ``framework.ordered_pool``: results taken back in
task order). A worker returns the canonical lines of the task's units (what the semantic
digest hashes) and their unit IDs, or that the task failed. The main process hashes the
lines in document order, hands the IDs to coverage and decodes from the lines only the
units it publishes (``CanonicalUnits``).

Every error is the one the main process alone gives: a task that failed in a worker (or
whose parse depends on what came before it: a blank line before it) is parsed again in
the main process, in its place, by the same code, and an error of the reading itself is
raised only once the tasks before it have been taken back. So ``--jobs N`` publishes the
bytes and fails with the messages of ``--jobs 1``.
"""

from __future__ import annotations

import array
import collections
import re
import struct
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import overload

import msgspec

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.ordered_pool import OrderedPool, Task
from streamer.framework.source.json_lines import JsonLinesParser, ParsedBlock
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.units import Batch

MAX_JOBS = 64
TASK_SIZE = 1 << 19  # the blocks handed to a worker at once (four, by default)
PART_SIZE = 1 << 17  # and parsed by it a part at a time


# A worker's result: ok, units, lines (JSON Lines: of the block), blank (JSON Lines: the
# first blank line, 1 for the block's first, 0: none), then the sizes of the canonical
# lines of the units (each ending with a newline: what the semantic digest hashes) and of
# the unit IDs (msgpack), which follow. Where each line starts is found by the main
# process, only in the blocks it publishes from (``CanonicalUnits``).
_RESULT = struct.Struct("<?QQQQQ")
_FAILED = _RESULT.pack(False, 0, 0, 0, 0, 0)
_ids = msgspec.msgpack.Encoder()
_ids_decoder = msgspec.msgpack.Decoder(list[str])
_NEWLINE = re.compile(b"\n")


def _result(batches: list[ParsedBlock], lines: int, blank: int) -> list[bytes | memoryview]:
    units = sum(len(batch[0]) for batch in batches)
    if not units:
        return [_RESULT.pack(True, 0, lines, blank, 0, 0)]
    canonical = batches[0][1] if len(batches) == 1 else b"".join(b[1] for b in batches)
    ids = batches[0][2] if len(batches) == 1 else [i for batch in batches for i in batch[2]]
    encoded = _ids.encode(ids)
    head = _RESULT.pack(True, units, lines, blank, len(canonical), len(encoded))
    return [head, canonical, encoded]


def parse_block(kind: int, block: bytes | bytearray) -> list[bytes | memoryview]:
    """A worker's work: parse and validate a task of JSON Lines (see ``_tasks``), in
    parts of about ``PART_SIZE`` bytes of whole lines (what the caches hold best; where it
    is cut changes nothing but the place of an error, and a task that fails is parsed
    again by the main process)."""
    try:
        parser = JsonLinesParser(first_line=1)
        batches: list[ParsedBlock] = []
        start, size = 0, len(block)
        view = memoryview(block)  # parts are views: no copy
        while start < size:
            end = block.find(b"\n", start + PART_SIZE - 1)
            end = size if end < 0 else end + 1
            batches += parser.parse(view[start:end])
            start = end
        return _result(batches, parser.next_line - 1, parser.blank)
    except Exception:  # parsed again by the main process, which raises in its place
        return [_FAILED]


class _Parsed:
    """A worker's result, read without copying its canonical lines."""

    def __init__(self, result: bytearray) -> None:
        view = memoryview(result)
        head = _RESULT.size
        self.ok, self.units, self.lines, self.blank, size, ids = _RESULT.unpack_from(view)
        self.canonical = view[head : head + size]
        self._ids = view[head + size : head + size + ids]

    def ids(self) -> list[str]:
        return _ids_decoder.decode(self._ids)


class CanonicalUnits(Sequence[SourceUnit]):
    """The units of a block, kept as their canonical lines and decoded on demand: the
    units of a slice are decoded when the slice is taken."""

    _decoder = msgspec.json.Decoder(list[SourceUnit])

    def __init__(self, canonical: memoryview, count: int) -> None:
        self._canonical = canonical
        self._count = count
        self._starts: array.array[int] | None = None  # where each line starts, then the end

    def __len__(self) -> int:
        return self._count

    def _offsets(self) -> array.array[int]:
        if self._starts is None:  # the first slice taken: most blocks are never sliced
            self._starts = array.array("I", [0])
            self._starts.extend(match.end() for match in _NEWLINE.finditer(self._canonical))
            assert len(self._starts) == self._count + 1
        return self._starts

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
            offsets = self._offsets()
            lines = bytes(self._canonical[offsets[start] : offsets[stop] - 1])
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


def parallel_batches(
    blocks: Iterable[bytes | memoryview], digest: SemanticDigest, jobs: int
) -> Generator[Batch, None, int]:
    """The batches of ``blocks`` (whole lines of JSON Lines after the header, as
    ``json_lines.line_blocks`` reads them), each task (blocks, joined) parsed
    by one of ``jobs`` worker processes, its canonical lines added to ``digest`` in
    document order; returns the unit count.

    A task succeeds exactly when each of its blocks would, with the same units and lines
    (a block's parse depends only on the lines before it through a blank line); when it
    fails, its blocks are parsed in this process one by one, as ``--jobs 1`` parses them,
    which raises the error ``--jobs 1`` raises."""
    count = 0
    line = 2  # the first line of the next task
    blank = 0  # the first blank line, which must end the document
    cuts: collections.deque[list[int]] = collections.deque()
    with OrderedPool(jobs, parse_block) as pool:
        for (_, data), result in pool.map(_tasks(blocks, cuts)):
            parsed = _Parsed(result)
            sizes = cuts.popleft()
            if not parsed.ok or (blank and parsed.units):
                parser = JsonLinesParser(first_line=line, blank=blank)
                start = 0
                for size in sizes:
                    for units, lines, ids in list(parser.parse(data[start : start + size])):
                        digest.add_canonical_lines(lines)
                        count += len(units)
                        yield Batch(units, ids)
                    start += size
                line, blank = parser.next_line, parser.blank
                continue
            if parsed.blank and not blank:
                blank = line + parsed.blank - 1
            line += parsed.lines
            if parsed.units:
                digest.add_canonical_lines(parsed.canonical)
                count += parsed.units
                yield Batch(CanonicalUnits(parsed.canonical, parsed.units), parsed.ids())
    return count

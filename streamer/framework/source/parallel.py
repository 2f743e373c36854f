"""A JSON Lines source document parsed by several processes (``--jobs N``), with the
result of one.

The lines after the header are cut into tasks of about ``TASK_SIZE`` bytes, each parsed
and validated by ``JsonLinesParser`` in one of N - 1 worker processes or in the main
process itself (an ``OrderedPool`` mapped with ``local``, ``framework.processes.ordered_pool``:
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

A task's work (``task_work``) answers with one message (``task_messages.TaskResult``):
the canonical lines of the task's units (what the semantic digest hashes), their unit
IDs and, when the reader was given the unit IDs its consumer looks for (``wanted``: the
projector's referenced IDs), where those are (``Hits``); or that the task failed. The
main process hashes the lines in document order and decodes from them only the units it
publishes (``CanonicalUnits``), the IDs only when asked.

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

import collections
import functools
import os
from collections.abc import Generator, Iterable, Iterator

from streamer.framework.json.canonical import SemanticDigest
from streamer.framework.processes.ordered_pool import OrderedPool, Task
from streamer.framework.source.canonical_units import CanonicalUnits
from streamer.framework.source.file_lines import FileLines
from streamer.framework.source.json_lines import JsonLinesParser, ParsedBlock
from streamer.framework.source.task_messages import (
    FileTask,
    TaskResult,
    UnitIds,
    canonical_lines,
    decode_result,
    decode_task,
    encode_task,
)
from streamer.framework.source.task_work import find_hits, parse_lines, parse_range
from streamer.framework.source.unit_batches import Batch, Hits

MAX_JOBS = 64
TASK_SIZE = 1 << 19  # the bytes handed to a worker at once
PART_SIZE = 1 << 17  # and parsed by it a part at a time


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
            yield b"".join(blocks)
            blocks, size = [], 0
    if blocks:
        cuts.append([len(b) for b in blocks])
        yield b"".join(blocks)


class _Feed:
    """What the main process knows as the results come back in order: the next line's
    number, the first blank line (which must end the document), the units counted."""

    def __init__(self, digest: SemanticDigest, wanted: frozenset[str] | None) -> None:
        self.digest = digest
        self.wanted = wanted
        self.line = 2  # the first line of the next task
        self.blank = 0
        self.count = 0

    def accepted(self, result: TaskResult | None) -> TaskResult | None:
        """The task's result when it stands (``None``: the task is parsed again here)."""
        if result is None or (self.blank and result.units):
            return None
        return result

    def take(self, result: TaskResult) -> Batch | None:
        """The batch of an accepted result (``None``: it has no unit)."""
        if result.blank and not self.blank:
            self.blank = self.line + result.blank - 1
        self.line += result.lines
        if not result.units:
            return None
        self.digest.add_canonical_lines(result.canonical)
        self.count += result.units
        message, start = canonical_lines(result)
        marks = (result.mark_lines, result.mark_offsets)
        units = CanonicalUnits(message, start, len(result.canonical), result.units, marks)
        hits = None if self.wanted is None else Hits(self.wanted, result.hits or [])
        return Batch(units, UnitIds(result.ids, result.units), hits)

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
    work = functools.partial(parse_lines, wanted=wanted, part_size=PART_SIZE)
    with OrderedPool(jobs - 1, work) as pool:
        for data, message in pool.map(_tasks(blocks, cuts), local=True):
            result = feed.accepted(decode_result(message))
            sizes = cuts.popleft()
            if result is None:
                parser = JsonLinesParser(first_line=feed.line, blank=feed.blank)
                start = 0
                for size in sizes:
                    yield from feed.batches(list(parser.parse(data[start : start + size])))
                    start += size
                feed.line, feed.blank = parser.next_line, parser.blank
                continue
            batch = feed.take(result)
            if batch is not None:
                yield batch
    return feed.count


def _ranges(lines: FileLines, size: int) -> Iterator[Task]:
    """The tasks of a file of ``size`` bytes: ranges of ``TASK_SIZE`` bytes, the last to
    the end of the file (whatever its size by then)."""
    start = lines.units_start
    while start + TASK_SIZE < size:
        yield encode_task(FileTask(start, start + TASK_SIZE, False))
        start += TASK_SIZE
    yield encode_task(FileTask(start, start, True))


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
    work = functools.partial(parse_range, source=lines, wanted=wanted, part_size=PART_SIZE)
    with OrderedPool(jobs - 1, work) as pool:
        for data, message in pool.map(_ranges(lines, size), local=True):
            result = feed.accepted(decode_result(message))
            task = decode_task(data)
            if result is None:
                break
            if lines.reached is not None:
                lines.reached(size if task.last else task.end)
            batch = feed.take(result)
            if batch is not None:
                yield batch
        else:
            return feed.count
    yield from _read_on(lines, lines.first_line(task.start), feed, buffer_size)
    return feed.count


def _read_on(lines: FileLines, start: int, feed: _Feed, buffer_size: int) -> Iterator[Batch]:
    """The rest of the file from the line at ``start`` (the first not yet taken), read
    and parsed in this process as ``--jobs 1`` reads it: from the block that holds it."""
    blocks = lines.blocks(buffer_size)
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
                cut = CanonicalUnits(canonical, 0, len(canonical), len(units)).line_start(skip)
                units, canonical, ids = units[skip:], canonical[cut:], ids[skip:]
            if units:
                yield from feed.batches([(units, canonical, ids)])
        for block in blocks:
            yield from feed.batches(parser.parse(block))
        return

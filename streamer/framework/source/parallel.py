"""A source document parsed by worker processes (``--jobs N``), with the result of one.

The main process reads the document as it does alone: the header and the blocks of whole
lines of JSON Lines (the JSON form is read in the main process: where its quick way cuts a
buffer depends on how the items before the cut decode). Each block is parsed and
validated in one of N worker processes (``OrderedPool``: one pair of pipes each, blocks
handed out round-robin and their results taken back in the same order, at most
``IN_FLIGHT`` a worker). A
worker returns the canonical lines of the block's units (what the semantic digest
hashes) and their unit IDs, or that the block failed. The main process hashes the lines
in document order, hands the IDs to coverage and decodes from the lines only the units
it publishes (``CanonicalUnits``).

Every error is the one the main process alone gives: a block that failed in a worker
(or whose parse depends on what came before it: a blank line before it) is parsed again
in the main process, in its place, by the same code, and an error of the reading itself
is raised only once the blocks before it have been taken back. So ``--jobs N`` publishes the
bytes and fails with the messages of ``--jobs 1``.

The workers are forked with the terminating signals blocked (the main process decides:
it kills them when it ends, however it ends) and also end when their task pipe closes,
or when the main process dies (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import array
import collections
import contextlib
import ctypes
import fcntl
import multiprocessing
import os
import queue
import re
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

import msgspec

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.errors import StreamerError
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.units import Batch

if TYPE_CHECKING:
    from streamer.framework.source.reader import SourceDocumentReader

MAX_JOBS = 64
IN_FLIGHT = 4  # tasks handed to a worker and not yet taken back (2: ~10% slower)
_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
_PR_SET_PDEATHSIG = 1
PIPE_SIZE = 1 << 20
TASK_SIZE = 1 << 19  # the reader's blocks handed to a worker at once (four, by default)
PART_SIZE = 1 << 17  # and parsed by it a part at a time

Task = tuple[bytes, bytes]  # (kind, data): two bytes that say what ``data`` is, then it
Work = Callable[[int, bytearray], Sequence[bytes | memoryview]]  # (kind, data) -> result parts


class WorkerError(StreamerError):
    """A worker process ended without returning its block (exit status 1)."""


_HEADER = struct.Struct("<Q")  # the size of the message that follows
_TASK = struct.Struct("<QBB")  # the size of the task's data, its kind (two bytes)


def _read_exact(descriptor: int, size: int) -> bytearray | None:
    """``size`` bytes from a blocking ``descriptor``; ``None`` at its end."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        got = os.readv(descriptor, [view[done:]])
        if not got:
            return None
        done += got
    return buffer


def _write_all(descriptor: int, parts: Sequence[bytes | memoryview]) -> None:
    views = [memoryview(part).cast("B") for part in parts if len(part)]
    while views:
        written = os.writev(descriptor, views)
        while views and written >= len(views[0]):
            written -= len(views.pop(0))
        if views:
            views[0] = views[0][written:]


def _serve(work: Work, tasks: int, results: int, inherited: list[int]) -> None:
    """A worker's loop: each task read from ``tasks`` is answered on ``results``, in
    order, until ``tasks`` ends (or ``results`` is closed); then the worker exits."""
    for descriptor in inherited:  # the main process's ends of its pipes to the workers
        with contextlib.suppress(OSError):
            os.close(descriptor)
    if sys.platform == "linux":
        with contextlib.suppress(Exception):  # no orphan when the main process is killed
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    written: queue.SimpleQueue[list[bytes | memoryview]] = queue.SimpleQueue()

    def write() -> None:  # while the next block is parsed: a result never waits for it
        try:
            while True:
                _write_all(results, written.get())
        except OSError:  # the main process is gone
            os._exit(0)

    threading.Thread(target=write, daemon=True).start()
    try:
        while (header := _read_exact(tasks, _TASK.size)) is not None:
            size, kind, flag = _TASK.unpack(header)
            data = _read_exact(tasks, size)
            if data is None:
                break
            result = work(kind | flag << 8, data)  # parsed in place
            del data
            size = sum(len(memoryview(part).cast("B")) for part in result)
            written.put([_HEADER.pack(size), *result])
    except OSError:  # the main process is gone
        pass
    finally:  # at once: nothing inherited from the main process is flushed or finalized
        os._exit(0)


def _enlarge(descriptor: int) -> None:
    """Give the pipe of ``descriptor`` room for a block (Linux caps it, by default at
    1 MiB; elsewhere, or refused, it keeps its size): fewer wake-ups a block."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setting is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(descriptor, setting, PIPE_SIZE)


class _Worker:
    """The main process's side of one worker: its pipes (non-blocking), the tasks not yet
    written and the results read."""

    def __init__(self, process: multiprocessing.process.BaseProcess, tasks: int, results: int):
        self.process = process
        self.tasks = tasks
        self.results = results
        self.outgoing: collections.deque[memoryview] = collections.deque()
        self.expected = 0  # results not yet read whole
        self.done: collections.deque[bytearray] = collections.deque()
        self._header = bytearray(_HEADER.size)
        self._buffer: bytearray | None = None  # the result being read
        self._filled = 0

    def submit(self, task: Task) -> None:
        kind, data = task
        self.outgoing.append(memoryview(_TASK.pack(len(data), kind[0], kind[1])))
        self.outgoing.append(memoryview(data))
        self.expected += 1

    def write(self) -> None:
        outgoing = self.outgoing
        while outgoing:
            try:
                written = os.write(self.tasks, outgoing[0])
            except BlockingIOError:
                return
            except BrokenPipeError:
                raise _ended() from None
            if written == len(outgoing[0]):
                outgoing.popleft()
            else:
                outgoing[0] = outgoing[0][written:]

    def read(self) -> None:
        while self.expected:
            buffer = self._buffer
            target = self._header if buffer is None else buffer
            try:
                got = os.readv(self.results, [memoryview(target)[self._filled :]])
            except BlockingIOError:
                return
            if not got:
                raise _ended()
            self._filled += got
            if self._filled < len(target):
                continue
            self._filled = 0
            if buffer is None:
                self._buffer = bytearray(_HEADER.unpack(self._header)[0])
                if self._buffer:
                    continue
            self.done.append(self._buffer if self._buffer is not None else bytearray())
            self._buffer = None
            self.expected -= 1


def _ended() -> WorkerError:
    return WorkerError(
        "a worker process of --jobs ended before returning its block",
        hint="it may have been killed (out of memory?); try a lower --jobs",
    )


class OrderedPool:
    """N worker processes applying ``work`` to byte strings, results in task order.

    The main process never blocks on one pipe: it writes the tasks and reads the results
    of every worker as their pipes allow (``poll``), so a worker is never left waiting
    for it to read, and neither waits on the other.
    """

    def __init__(self, jobs: int, work: Work) -> None:
        self.jobs = jobs
        self._work = work
        self._workers: list[_Worker] = []

    def __enter__(self) -> OrderedPool:
        context = multiprocessing.get_context("fork")
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)  # inherited by the fork
        try:
            for _ in range(self.jobs):
                task_out, task_in = os.pipe()
                result_out, result_in = os.pipe()
                _enlarge(task_in)
                _enlarge(result_in)
                ours = [d for w in self._workers for d in (w.tasks, w.results)]
                process = context.Process(
                    target=_serve,
                    args=(self._work, task_out, result_in, [*ours, task_in, result_out]),
                    daemon=True,
                )
                worker = _Worker(process, task_in, result_out)
                self._workers.append(worker)
                try:
                    process.start()
                finally:
                    os.close(task_out)
                    os.close(result_in)
                os.set_blocking(task_in, False)
                os.set_blocking(result_out, False)
        except BaseException:
            self.close()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every worker now (they hold nothing that must be finished)."""
        for worker in self._workers:
            for descriptor in (worker.tasks, worker.results):
                with contextlib.suppress(OSError):
                    os.close(descriptor)
            with contextlib.suppress(Exception):
                worker.process.kill()
        for worker in self._workers:
            with contextlib.suppress(Exception):
                worker.process.join()
                worker.process.close()
        self._workers = []

    def _pump(self) -> None:
        """Wait until some pipe is ready, then write and read what they allow."""
        poll = select.poll()
        for worker in self._workers:
            if worker.outgoing:
                poll.register(worker.tasks, select.POLLOUT)
            if worker.expected:
                poll.register(worker.results, select.POLLIN)
        ready = {descriptor for descriptor, _ in poll.poll()}
        for worker in self._workers:
            if worker.tasks in ready:
                worker.write()
            if worker.results in ready:
                worker.read()

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, bytearray]]:
        """``(task, work(*task))`` for each of ``tasks``, in order (the result's parts
        joined). An exception raised by ``tasks`` is raised after the results of the tasks
        before it."""
        flying: collections.deque[tuple[_Worker, Task]] = collections.deque()
        pending = iter(tasks)
        failure: Exception | None = None
        done = False
        turn = 0
        limit = self.jobs * IN_FLIGHT
        while True:
            while not done and len(flying) < limit:
                try:
                    task = next(pending)
                except StopIteration:
                    done = True
                except Exception as error:  # raised in its place, below
                    failure, done = error, True
                else:
                    worker = self._workers[turn]
                    worker.submit(task)
                    worker.write()
                    flying.append((worker, task))
                    turn = (turn + 1) % self.jobs
            if not flying:
                break
            worker, task = flying[0]
            while not worker.done:
                self._pump()
            flying.popleft()
            yield task, worker.done.popleft()
        if failure is not None:
            raise failure


# -- the source document's blocks ----------------------------------------------------------


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


def _result(
    batches: list[tuple[list[SourceUnit], bytes, list[str]]], lines: int, blank: int
) -> list[bytes | memoryview]:
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
    from streamer.framework.source.reader import _JsonLines

    try:
        parser = _JsonLines(first_line=1)
        batches: list[tuple[list[SourceUnit], bytes, list[str]]] = []
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


def _tasks(reader: SourceDocumentReader, cuts: collections.deque[list[int]]) -> Iterator[Task]:
    """The reader's blocks, joined into tasks of about ``TASK_SIZE`` bytes; the sizes of
    each task's blocks are appended to ``cuts``."""
    blocks: list[bytes | memoryview] = []
    size = 0
    for block in reader._jsonl_blocks():
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
    reader: SourceDocumentReader, digest: SemanticDigest, jobs: int
) -> Generator[Batch, None, int]:
    """The batches of a JSON Lines reader, each task (blocks of the reader, joined) parsed
    by one of ``jobs`` worker processes, its canonical lines added to ``digest`` in
    document order; returns the unit count.

    A task succeeds exactly when each of its blocks would, with the same units and lines
    (a block's parse depends only on the lines before it through a blank line); when it
    fails, its blocks are parsed in this process one by one, as ``--jobs 1`` parses them,
    which raises the error ``--jobs 1`` raises."""
    from streamer.framework.source.reader import _JsonLines

    count = 0
    line = 2  # the first line of the next task
    blank = 0  # the first blank line, which must end the document
    cuts: collections.deque[list[int]] = collections.deque()
    with OrderedPool(jobs, parse_block) as pool:
        for (_, data), result in pool.map(_tasks(reader, cuts)):
            parsed = _Parsed(result)
            sizes = cuts.popleft()
            if not parsed.ok or (blank and parsed.units):
                parser = _JsonLines(first_line=line)
                parser.blank = blank
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

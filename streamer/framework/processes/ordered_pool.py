"""An ordered pool of forked worker processes: tasks in, results out, in task order.

``OrderedPool(jobs, work)`` forks ``jobs`` workers, each with one pair of pipes; ``map``
hands the tasks out round-robin, at most ``IN_FLIGHT`` a worker, and yields their results
in the order of the tasks. A task is bytes; ``work`` runs in the worker on them, in
place, and returns the parts of its result, written to the pipe without joining them.
The main process never blocks on one pipe: it writes the tasks and reads the results of
every worker as their pipes allow (``poll``), so neither side waits on the other.
``map(tasks, local=True)``: the main process works too, taking the next task itself while
the result it waits for is not back and every worker has work queued (``BUSY``), so that
N - 1 workers and it keep N cores busy (N + 1 busy processes on N cores measured about
20% more CPU than N: ``source.parallel``).

The workers are forked with the terminating signals blocked (the main process decides:
it kills them when it ends, however it ends) and also end when their task pipe closes,
or when the main process dies (``PR_SET_PDEATHSIG``). A worker that ends without
answering is a ``WorkerError``, never a hang.

The pool knows nothing of what it computes: ``source.parallel`` parses a source
document's blocks with it (``--jobs``).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import fcntl
import itertools
import multiprocessing
import os
import queue
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

from streamer.framework.errors.types import StreamerError

BUSY = 2  # a worker with fewer tasks queued is fed before this process takes one
IN_FLIGHT = 4  # tasks handed to a worker and not yet taken back (2: ~10% slower)
_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
_PR_SET_PDEATHSIG = 1
PIPE_SIZE = 1 << 20

Task = bytes  # what ``work`` works on, in a worker's own buffer
Part = bytes | bytearray | memoryview
Work = Callable[[bytearray], Sequence[Part]]  # a task -> the parts of its result


_NOT_BACK = bytearray()  # the result of a task in a worker, until it is taken back


class WorkerError(StreamerError):
    """A worker process ended without returning its block (exit status 1)."""


_HEADER = struct.Struct("<Q")  # the size of the task or result that follows


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


_IOV_MAX = 1024  # the parts ``writev`` takes at once (POSIX's least, Linux's)


def _write_all(descriptor: int, parts: Sequence[Part]) -> None:
    views = collections.deque(memoryview(part).cast("B") for part in parts if len(part))
    while views:
        written = os.writev(descriptor, list(itertools.islice(views, _IOV_MAX)))
        while views and written >= len(views[0]):
            written -= len(views.popleft())
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
    written: queue.SimpleQueue[list[Part]] = queue.SimpleQueue()

    def write() -> None:  # while the next block is parsed: a result never waits for it
        try:
            while True:
                _write_all(results, written.get())
        except OSError:  # the main process is gone
            os._exit(0)

    threading.Thread(target=write, daemon=True).start()
    try:
        while (header := _read_exact(tasks, _HEADER.size)) is not None:
            data = _read_exact(tasks, _HEADER.unpack(header)[0])
            if data is None:
                break
            result = work(data)  # parsed in place
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
        self.outgoing.append(memoryview(_HEADER.pack(len(task))))
        self.outgoing.append(memoryview(task))
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


def _joined(parts: Sequence[Part]) -> bytearray:
    """A result of this process as a worker's comes back: one buffer (a result of one
    ``bytearray`` is taken as it is)."""
    if len(parts) == 1 and isinstance(parts[0], bytearray):
        return parts[0]
    return bytearray().join(parts)


def _ended() -> WorkerError:
    return WorkerError(
        "a worker process of --jobs ended before returning its result",
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

    def map(self, tasks: Iterable[Task], local: bool = False) -> Iterator[tuple[Task, bytearray]]:
        """``(task, work(task))`` for each of ``tasks``, in order (the result's parts
        joined). An exception raised by ``tasks`` is raised after the results of the tasks
        before it.

        ``local``: this process works too. While the next result is not back and every
        worker has ``BUSY`` tasks or more not yet taken back, it takes the next task
        itself (so N - 1 workers and this process keep N cores busy, not N + 1 processes
        on N cores); at most ``IN_FLIGHT`` of its own results wait for their turn. With
        no worker, it does every task."""
        mapping = _Mapping(self._workers, self._work, tasks, local)
        while (taken := mapping.next()) is not None:
            yield taken
        if mapping.failure is not None:
            raise mapping.failure


class _Mapping:
    """One ``OrderedPool.map``: the tasks not yet taken and those in flight, in order,
    each with the worker doing it (``None``: this process did it) and its result."""

    def __init__(
        self, workers: list[_Worker], work: Work, tasks: Iterable[Task], local: bool
    ) -> None:
        self._workers = workers
        self._work = work
        self._pending = iter(tasks)
        self._local = local
        self.failure: Exception | None = None  # raised by the tasks, after the results
        self._done = False  # no task left to take
        self._turn = 0  # the worker handed the next task
        self._limit = len(workers) * IN_FLIGHT
        self._queued = 0  # tasks handed to the workers
        self._held = 0  # results of this process waiting for their turn
        self._flying: collections.deque[tuple[_Worker | None, Task, bytearray]] = (
            collections.deque()
        )

    def next(self) -> tuple[Task, bytearray] | None:
        """The next task and its result (``None``: every task is done)."""
        self._hand_out()
        if not self._flying and not (self._local and not self._done and self._here()):
            return None
        owner, task, result = self._flying[0]
        if owner is None:
            self._held -= 1
        else:
            self._wait(owner)
            result = owner.done.popleft()
            self._queued -= 1
        self._flying.popleft()
        return task, result

    def _take(self) -> Task | None:
        """The next task (``None``: none is left, or taking it failed)."""
        try:
            return next(self._pending)
        except StopIteration:
            self._done = True
        except Exception as error:  # raised in its place, after the results before it
            self.failure, self._done = error, True
        return None

    def _hand_out(self) -> None:
        """Hand the next tasks to the workers, round-robin, up to ``IN_FLIGHT`` each."""
        while not self._done and self._queued < self._limit:
            task = self._take()
            if task is not None:
                feeding = self._workers[self._turn]
                feeding.submit(task)
                feeding.write()
                self._flying.append((feeding, task, _NOT_BACK))
                self._queued += 1
                self._turn = (self._turn + 1) % len(self._workers)

    def _here(self) -> bool:
        """Whether this process did the next task (``False``: none was left)."""
        task = self._take()
        if task is None:
            return False
        self._flying.append((None, task, _joined(self._work(bytearray(task)))))
        self._held += 1
        return True

    def _wait(self, worker: _Worker) -> None:
        """Until ``worker`` has returned its oldest result; with ``local``, this process
        meanwhile does the next tasks while every worker is busy."""
        while not worker.done:
            if self._local and not self._done and self._held < IN_FLIGHT:
                _pump(self._workers, 0)  # take back what is back already
                if worker.done:
                    break
                if _busy(self._workers) and self._here():
                    continue
            _pump(self._workers)


def _pump(workers: list[_Worker], timeout: int | None = None) -> None:
    """Wait until some pipe of ``workers`` is ready (at most ``timeout`` ms; ``None``: no
    limit), then write and read what they allow."""
    poll = select.poll()
    for worker in workers:
        if worker.outgoing:
            poll.register(worker.tasks, select.POLLOUT)
        if worker.expected:
            poll.register(worker.results, select.POLLIN)
    ready = {descriptor for descriptor, _ in poll.poll(timeout)}
    for worker in workers:
        if worker.tasks in ready:
            worker.write()
        if worker.results in ready:
            worker.read()


def _busy(workers: list[_Worker]) -> bool:
    """Whether every worker has at least ``BUSY`` tasks not yet taken back."""
    return all(worker.expected >= BUSY for worker in workers)

"""Reading a source document: from a path, ``-`` or a stream, once, in batches,
with an optional progress callback."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Unpack

from streamer.api.run_options import Progress, ReadOptions
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import (
    ConfigurationError,
)
from streamer.framework.source.accepted import AcceptedSource
from streamer.framework.source.parallel import MAX_JOBS
from streamer.framework.source.reader import (
    DEFAULT_BUFFER_SIZE,
    JSON_BATCH_UNITS,
    DocumentIdentity,
    SourceDocumentReader,
)
from streamer.framework.source.unit_batches import Batch

Source = str | os.PathLike[str] | BinaryIO


class _CountingStream:
    """A binary stream that reports how many bytes were read through it."""

    def __init__(self, stream: BinaryIO, progress: Progress) -> None:
        self._stream: Any = stream
        self._progress = progress
        self._done = 0
        try:
            size = os.fstat(stream.fileno()).st_size
            self._total: int | None = size if size > 0 else None
        except (OSError, AttributeError, io.UnsupportedOperation):
            self._total = None

    def _count(self, size: int) -> None:
        self._done += size
        self._progress(self._done, self._total)

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._stream.read(size)
        self._count(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        size = int(self._stream.readinto(buffer))
        self._count(size)
        return size

    def readline(self, size: int = -1) -> bytes:
        data: bytes = self._stream.readline(size)
        self._count(len(data))
        return data

    def readable(self) -> bool:
        return True

    # A regular file is read by the workers of --jobs themselves (by offset): the reader
    # finds the file through these, and says how far the units taken back reach.
    def fileno(self) -> int:
        return int(self._stream.fileno())

    def seekable(self) -> bool:
        return bool(self._stream.seekable())

    def tell(self) -> int:
        return int(self._stream.tell())

    def reached(self, offset: int) -> None:
        """The units up to byte ``offset`` of the file have been read (by workers)."""
        if offset > self._done:
            self._count(offset - self._done)


class _TerminalInput(io.RawIOBase):
    """Standard input from a terminal, where every Ctrl-D is an end of file of its own:
    the first one ends the input, however often the readers above ask again."""

    def __init__(self, descriptor: int) -> None:
        super().__init__()
        self._descriptor = descriptor
        self._ended = False

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._descriptor

    def readinto(self, buffer: Any) -> int:
        if self._ended:
            return 0
        data = os.read(self._descriptor, len(buffer))
        if not data:
            self._ended = True
        buffer[: len(data)] = data
        return len(data)


def _standard_input() -> BinaryIO:
    if sys.stdin is None:
        raise ConfigurationError(
            "standard input is closed", hint="redirect it from a file, or name the file"
        )
    if sys.stdin.isatty():
        return io.BufferedReader(_TerminalInput(sys.stdin.fileno()))
    return sys.stdin.buffer


@contextlib.contextmanager
def open_source(source: Source, progress: Progress | None = None) -> Iterator[BinaryIO]:
    """A binary stream for a path, ``-`` (standard input) or an already open stream;
    ``progress(bytes_read, total_or_None)`` is called as it is read, when given."""
    with _open_source(source) as stream:
        yield stream if progress is None else _CountingStream(stream, progress)  # type: ignore[misc]


@contextlib.contextmanager
def _open_source(source: Source) -> Iterator[BinaryIO]:
    if not isinstance(source, (str, os.PathLike)):
        yield source
        return
    if os.fspath(source) == "-":
        yield _standard_input()
        return
    path = Path(source)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise ConfigurationError(
            f"source file {shown_path(source)} does not exist",
            hint="check --source, or use - for stdin",
        ) from None
    except OSError as error:
        raise ConfigurationError(
            f"source file {shown_path(source)} cannot be read ({error.strerror})"
        ) from None
    with stream:
        yield stream


@contextlib.contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector during a pass: a pass allocates millions of
    short-lived, acyclic objects, and holding a batch of them alive makes the collector
    rescan them again and again (measured: parsing took twice as long)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


Batches = Iterable[Batch]


def check_jobs(jobs: int) -> int:
    """``jobs`` if it is a number of parsing processes ``source_batches`` accepts."""
    if type(jobs) is not int or not 1 <= jobs <= MAX_JOBS:
        raise ConfigurationError(
            f"--jobs must be a whole number from 1 to {MAX_JOBS}",
            hint="1 (the default) parses in the main process alone; raise it to the cores you have",
        )
    return jobs


@contextlib.contextmanager
def source_batches(
    source: Source | AcceptedSource,
    tap: Callable[[Batches], Batches] | None = None,
    wanted: frozenset[str] | None = None,
    **options: Unpack[ReadOptions],
) -> Iterator[tuple[Batches, Callable[[], DocumentIdentity]]]:
    """The one pass over a source document: its validated units in batches (through
    ``tap`` when given) and the document's identity, available once they are exhausted.
    ``wanted``: unit IDs the consumer looks for (the parsers of ``jobs`` find them:
    ``Batch.hits``). ``options``: ``buffer_size`` (128 KiB), ``batch_units`` (16384),
    ``jobs`` (1: parsed in this process; N: by this one and N - 1 worker processes, ended
    with the pass), ``progress`` (none).

    An ``AcceptedSource`` (the document ``streamer run`` imported and accepted) is read
    without validating or digesting it again, in this process whatever ``jobs``: the
    same units in the same order, and its identity as the import accepted it (and the
    ``wanted`` IDs' hits, when an earlier stage of the run found where they all are)."""
    jobs = check_jobs(options.get("jobs", 1))
    if isinstance(source, AcceptedSource):
        with without_cycle_collection():
            accepted = source.batches(
                options.get("buffer_size", DEFAULT_BUFFER_SIZE), options.get("progress"), wanted
            )
            try:
                yield (accepted if tap is None else tap(accepted)), lambda: source.identity
            finally:
                accepted.close()
        return
    with open_source(source, options.get("progress")) as stream, without_cycle_collection():
        reader = SourceDocumentReader(
            stream,
            buffer_size=options.get("buffer_size", DEFAULT_BUFFER_SIZE),
            batch_units=options.get("batch_units", JSON_BATCH_UNITS),
            jobs=jobs,
            wanted=wanted,
        )
        batches = reader.batches()
        try:
            yield (batches if tap is None else tap(batches)), lambda: reader.identity
        finally:
            batches.close()  # now, not when collected: its worker processes end with it

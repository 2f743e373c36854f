"""The progress line on standard error, for long runs on a terminal.

It shows the bytes of the source read so far, out of the total where the size is known
(a file, or standard input redirected from a file), redrawn at most four times a second
and erased when the run ends. It is drawn only when standard error is a terminal, and
never with ``--quiet``: in a pipeline or a log, standard error carries only messages.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO, TypeVar

from streamer.cli.time_left import TimeLeft, spoken

INTERVAL = 0.25
Line = TypeVar("Line", bound="StatusLine")


def human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


class StatusLine:
    """One line on ``stream`` (standard error), redrawn in place and erased at the end."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._shown = False

    def draw(self, line: str) -> None:
        self._stream.write("\r" + line + "\x1b[K")
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        """Erase the line, so that whatever follows starts on a clean line."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


class TerminalProgress(StatusLine):
    """A callable ``(bytes_read, total_or_None)`` that redraws one line on ``stream``."""

    def __init__(
        self,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        interval: float = INTERVAL,
    ) -> None:
        super().__init__(stream)
        self._clock = clock
        self._interval = interval
        self._next = clock()

    def _due(self) -> bool:
        """Whether the line may be redrawn now (at most every ``interval`` seconds)."""
        now = self._clock()
        if now < self._next:
            return False
        self._next = now + self._interval
        return True

    def __call__(self, done: int, total: int | None) -> None:
        if not self._due():
            return
        line = f"streamer: read {human(done)}"
        if total:
            line += f" of {human(total)} ({min(100, done * 100 // total)}%)"
        self.draw(line)


@contextlib.contextmanager
def on_terminal(quiet: bool, make: Callable[[], Line]) -> Iterator[Line | None]:
    """A status line made by ``make``: none when quiet or when stderr is not a terminal;
    erased when the command ends, however it ends."""
    if quiet or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    line = make()
    try:
        yield line
    finally:
        line.close()


def showing_progress(quiet: bool) -> contextlib.AbstractContextManager[TerminalProgress | None]:
    """The bytes-read progress line of a command that reads a source document."""
    return on_terminal(quiet, TerminalProgress)


class RunProgress(TerminalProgress):
    """The progress line of ``streamer run``: the stage, its number, and its counts
    (``streamer: [2/5] extract npcs: chunk 12 of 30, 8 min left``, ``[1/5] import: read
    2.1 of 3.0 MB``). The stage's line is drawn when it starts (a stage is never silent);
    its counts as they grow; the stage number never goes back. A stage that answers chunk
    by chunk shows its time left once its first few chunks have come (``time_left``:
    the chunks still to come at the rate measured so far)."""

    def __init__(
        self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(stream, clock)
        self._stage = "streamer:"
        self._time_left = TimeLeft()

    def stage(self, name: str, number: int, count: int) -> None:
        self._stage = f"streamer: [{number}/{count}] {name}"
        self._time_left = TimeLeft()
        self.draw(self._stage)

    def __call__(self, done: int, total: int | None) -> None:
        if self._due():
            line = f"{self._stage}: read {human(done)}"
            if total:
                line += f" of {human(total)}"
            self.draw(line)

    def chunk(self, lane_id: str, done: int, total: int) -> None:
        self._time_left.answered(lane_id, done, total, self._clock())
        if self._due() or done == total:
            line = f"{self._stage} {lane_id}: chunk {done} of {total}"
            seconds = self._time_left.seconds()
            if seconds is not None and seconds > 0:
                line += ", " + spoken(seconds)
            self.draw(line)


def showing_run_progress(quiet: bool) -> contextlib.AbstractContextManager[RunProgress | None]:
    """The progress line of ``streamer run``."""
    return on_terminal(quiet, RunProgress)

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
from typing import TextIO

INTERVAL = 0.25


def human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


class TerminalProgress:
    """A callable ``(bytes_read, total_or_None)`` that redraws one line on ``stream``."""

    def __init__(
        self,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        interval: float = INTERVAL,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._interval = interval
        self._next = clock()
        self._shown = False

    def __call__(self, done: int, total: int | None) -> None:
        now = self._clock()
        if now < self._next:
            return
        self._next = now + self._interval
        line = f"streamer: read {human(done)}"
        if total:
            line += f" of {human(total)} ({min(100, done * 100 // total)}%)"
        self._stream.write("\r" + line + "\x1b[K")
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        """Erase the line, so that whatever follows starts on a clean line."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


@contextlib.contextmanager
def showing_progress(quiet: bool) -> Iterator[TerminalProgress | None]:
    """The progress display for a command: none when quiet or when stderr is not a
    terminal; erased when the command ends, however it ends."""
    if quiet or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    display = TerminalProgress()
    try:
        yield display
    finally:
        display.close()

"""Reading a small input file whole: only a regular file, and only up to a bound.

Configurations, lane outputs and bundle members are read whole, so each kind of file has
a documented size bound (``docs/operations.md``, "Input files"). A FIFO, a device or a
socket is refused before a byte is read: it is opened without blocking, so a FIFO
without a writer cannot hang the run, and ``/dev/zero`` cannot be read without end. A
symbolic link is followed; what it names must be a regular file too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from streamer.framework.errors.types import StreamerError

MIB = 1 << 20


def describe_bound(limit: int) -> str:
    """``1 MiB``, ``256 MiB``: a bound as the messages and the docs state it."""
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit} bytes"


def read_regular_text(
    path: Path,
    limit: int,
    what: str,
    error: type[StreamerError],
    *,
    missing_hint: str,
    encoding: str = "utf-8",
) -> str:
    """``read_regular_file`` decoded as ``encoding``: a missing file, bytes that are not
    text and everything ``read_regular_file`` refuses each raise ``error`` naming ``what``."""
    try:
        return read_regular_file(path, limit, what, error).decode(encoding)
    except FileNotFoundError:
        raise error(f"{what} does not exist", hint=missing_hint) from None
    except UnicodeDecodeError:
        raise error(f"{what} cannot be read (not UTF-8 text)") from None


def read_regular_file(
    path: Path, limit: int, what: str, error: type[StreamerError], *, hint: str | None = None
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Anything else raises ``error`` with a message that starts with ``what`` (e.g.
    ``configuration file streamer.yaml``); a missing file raises ``FileNotFoundError``,
    for the caller to word.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as failure:
        raise error(f"{what} cannot be read ({failure.strerror})", hint=hint) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise error(f"{what} is not a regular file", hint=hint or "name a regular file")
        if status.st_size > limit:
            raise error(f"{what} is larger than its bound of {describe_bound(limit)}", hint=hint)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(descriptor, min(limit + 1 - size, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while it was read
                raise error(
                    f"{what} is larger than its bound of {describe_bound(limit)}", hint=hint
                )
        return b"".join(chunks)
    finally:
        os.close(descriptor)

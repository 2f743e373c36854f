"""Atomic publication: a file is written to a temporary sibling and renamed into place.

A failed or interrupted write leaves neither a partial file nor the temporary one. Files
are created readable by the owner only: published artifacts can hold transcript text.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIRECTORY_MODE = 0o700
WRITE_BUFFER = 1 << 20


@contextlib.contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """Yield a buffered binary file; on success it replaces ``path`` atomically."""
    directory = path.parent if str(path.parent) else Path(".")
    temporary = directory / f".{path.name}.{os.getpid()}.partial"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb", buffering=WRITE_BUFFER) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def publish(destination: str, write: Callable[[IO[bytes]], None]) -> None:
    """Run ``write`` into ``destination``: a path, or ``-`` for standard output."""
    if destination == "-":
        out = sys.stdout.buffer
        write(out)
        out.flush()
        return
    with atomic_file(Path(destination)) as out:
        write(out)

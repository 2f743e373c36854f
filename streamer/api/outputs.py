"""Where results go: a path (published atomically), ``-`` or a stream."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO

from streamer.framework.errors import (
    ConfigurationError,
)
from streamer.output.publication import publish

WriteTarget = str | os.PathLike[str] | IO[bytes]


def check_output_destination(output: str | os.PathLike[str]) -> None:
    """Fail before reading anything when ``output`` cannot be written."""
    if os.fspath(output) == "-":
        return
    path = Path(output)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ConfigurationError(f"output {path.name} is a directory", hint="name a file")
    if not parent.is_dir():
        raise ConfigurationError(
            f"output folder for {path.name} does not exist", hint="create it first"
        )
    if not os.access(parent, os.W_OK):
        raise ConfigurationError(f"output folder for {path.name} is not writable")


def publish_to(output: WriteTarget, write: Callable[[IO[bytes]], None]) -> None:
    """Run ``write`` into ``output``: a path (published atomically), ``-`` or a stream."""
    if isinstance(output, (str, os.PathLike)):
        publish(os.fspath(output), write)
    else:
        write(output)

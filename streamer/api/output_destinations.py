"""Where results go: a path, ``-`` or a stream; and the inputs an output must never replace.

A path is published as ``streamer.output.publication`` decides (atomically for a regular
file or a new name, in place for a device or FIFO). An ``--output`` that is the same file
(device and inode) as one of the run's inputs is refused before anything is read: the
input would be destroyed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.output.publication import (
    Destination,
    publish,
    resolve_destination,
    standard_output,
)

WriteTarget = str | os.PathLike[str] | IO[bytes]
# An input of a run: how the messages name it (``--source``, ``--config``, ``lane spells``)
# and its path (``-`` for standard input); a stream or ``None`` is never compared.
NamedInput = tuple[str, "str | os.PathLike[str] | object | None"]


def _identity(source: object) -> tuple[int, int] | None:
    """``(device, inode)`` of an input that is a regular file (or standard input
    redirected from one)."""
    try:
        if isinstance(source, (str, os.PathLike)):
            status = os.fstat(0) if os.fspath(source) == "-" else os.stat(source)
        else:
            return None
    except OSError:
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _input_path(source: object) -> Path | None:
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        return Path(os.path.realpath(source))
    return None


def check_output_destination(
    output: str | os.PathLike[str], inputs: Iterable[NamedInput] = ()
) -> Destination | None:
    """Decide how ``output`` is published, failing (exit status 2) before anything is
    read when it cannot be, or when it is one of ``inputs``. ``None`` for ``-``."""
    if os.fspath(output) == "-":
        require_standard_output()
        return None
    destination = resolve_destination(output)
    if destination.identity is not None:
        for role, source in inputs:
            if _identity(source) == destination.identity:
                raise ConfigurationError(
                    f"--output {shown_path(output)} is the same file as {role}; "
                    "publishing would destroy it",
                    hint="choose another --output",
                )
    return destination


def resolve_output(
    output: WriteTarget, inputs: Iterable[NamedInput] = ()
) -> WriteTarget | Destination | None:
    """``output`` resolved and checked (before anything is read), or the stream given."""
    if isinstance(output, (str, os.PathLike)):
        return check_output_destination(output, inputs)
    return output


def require_standard_output() -> None:
    """Fail (exit status 2) before anything is read when standard output is closed."""
    standard_output()


def check_inputs_outside(folder: str | os.PathLike[str], inputs: Iterable[NamedInput]) -> None:
    """Refuse (exit status 2) when an input lies inside ``folder``, an existing bundle
    that the run would replace."""
    if not os.path.isdir(folder):
        return
    inside = Path(os.path.realpath(folder))
    for role, source in inputs:
        path = _input_path(source)
        if path is not None and (path == inside or inside in path.parents):
            raise ConfigurationError(
                f"{role} is inside --output {Path(folder).name}, which the run replaces",
                hint="choose another --output, or move the input out of it",
            )


def config_input(path: Path | None) -> list[NamedInput]:
    return [] if path is None else [("--config", path)]


def publish_to(
    output: WriteTarget | Destination | None, write: Callable[[IO[bytes]], None]
) -> None:
    """Run ``write`` into ``output``: a path or a ``Destination``, ``-`` or ``None``
    (standard output), or a stream."""
    if output is None:
        publish("-", write)
    elif isinstance(output, Destination):
        publish(output, write)
    elif isinstance(output, (str, os.PathLike)):
        publish(os.fspath(output), write)
    else:
        write(output)

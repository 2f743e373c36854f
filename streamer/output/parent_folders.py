"""The missing folders above an output, made as ``mkdir -p`` would, and taken back when
nothing was published in them.

``streamer run --output out/session`` in an empty folder makes ``out`` (with the umask's
permissions, as ``mkdir`` would); when the run then publishes nothing, the folders it made
and left empty are removed again, so that a mistyped path leaves no trace.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.output.publication import DIRECTORY_MODE


def make_parents(folder: Path, given: str, option: str = "--output") -> list[Path]:
    """Make ``folder`` and its missing ancestors; the folders made, outermost first.
    ``given``: the output as the user typed it, for the messages."""
    missing: list[Path] = []
    current = folder
    while not os.path.isdir(current):
        if os.path.lexists(current):
            raise ConfigurationError(
                f"{shown_path(current)} in {option} {shown_path(given)} is not a folder",
                hint=f"choose another {option}",
            )
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    made: list[Path] = []
    try:
        for path in reversed(missing):
            os.mkdir(path, DIRECTORY_MODE)
            made.append(path)
    except OSError as error:
        remove_empty(made)
        raise ConfigurationError(
            f"cannot create the folder {shown_path(path)} of {option} {shown_path(given)} "
            f"({error.strerror or 'error'})",
            hint="check the path and its permissions",
        ) from None
    return made


def remove_empty(made: list[Path]) -> None:
    """Remove the folders of ``made`` that are empty, innermost first."""
    for path in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(path)


@contextlib.contextmanager
def parents_made(folder: Path, given: str, option: str = "--output") -> Iterator[list[Path]]:
    """``make_parents`` for the block; the folders made are removed again (when empty) if
    the block fails, however it fails."""
    made = make_parents(folder, given, option)
    try:
        yield made
    except BaseException:
        remove_empty(made)
        raise

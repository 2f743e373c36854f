"""Atomic publication of a bundle folder: all of it, or nothing.

The bundle is assembled in a temporary sibling of the destination (``.NAME.*.partial``)
and renamed into place. A failure or an interruption (Ctrl-C, SIGTERM) before that rename
removes the temporary folder and leaves the destination as it was. An existing
destination is replaced only when forced, and then by renames: the old bundle is renamed
aside (``.NAME.*.old``), the new one renamed in, and the old one removed. Signals are held
back while folders are renamed or removed, so an interruption never leaves a half-made
swap or a half-removed temporary folder behind.

Files are created 0600 and folders 0700: a bundle can hold transcript text.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from streamer.framework.errors import ConfigurationError
from streamer.output.publication import DIRECTORY_MODE, FILE_MODE, WRITE_BUFFER

_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def check_destination(destination: Path, *, force: bool, marker: str) -> None:
    """Fail (a usage error, before any input is read) unless ``destination`` can be published.

    A folder holding ``marker`` (a bundle) or an empty folder may be replaced with
    ``force``; anything else is never replaced.
    """
    name = destination.name
    if not name or name in {".", "..", "-"}:
        raise ConfigurationError("--output must name the bundle folder to create")
    parent = destination.parent
    if not parent.is_dir():
        raise ConfigurationError(f"output folder for {name} does not exist", hint="create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigurationError(f"output folder for {name} is not writable")
    if not os.path.lexists(destination):
        return
    if not force:
        raise ConfigurationError(f"output {name} already exists", hint="use --force to replace it")
    if destination.is_symlink() or not destination.is_dir():
        raise ConfigurationError(f"output {name} exists and is not a folder; it is never replaced")
    if not (destination / marker).is_file() and any(destination.iterdir()):
        raise ConfigurationError(
            f"output {name} is a folder without {marker}, not a bundle; it is never replaced",
            hint="choose another --output, or remove the folder yourself",
        )


class StagedBundle:
    """The temporary folder a bundle is assembled in; it records the files written."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files: list[str] = []

    @contextlib.contextmanager
    def create(self, relative: str) -> Iterator[IO[bytes]]:
        """A new file at the ``/``-separated ``relative`` path, flushed to disk on close."""
        path = self.folder / relative
        if not path.parent.is_dir():
            os.mkdir(path.parent, DIRECTORY_MODE)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(descriptor, "wb", buffering=WRITE_BUFFER) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        self.files.append(relative)

    def write(self, relative: str, data: bytes) -> None:
        with self.create(relative) as out:
            out.write(data)

    def sync_folders(self) -> None:
        for folder in {(self.folder / relative).parent for relative in self.files}:
            _fsync_folder(folder)


@contextlib.contextmanager
def staged_bundle(destination: Path, *, force: bool) -> Iterator[StagedBundle]:
    """Yield a ``StagedBundle``; when the block completes, it becomes ``destination``."""
    parent = destination.parent
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", suffix=".partial", dir=parent))
    try:
        staged = StagedBundle(staging)
        yield staged
        staged.sync_folders()
        with _signals_held():
            _move_into_place(staging, destination, force=force)
        _fsync_folder(parent)
    except BaseException:
        with _signals_held():
            shutil.rmtree(staging, ignore_errors=True)
        raise


def _move_into_place(staging: Path, destination: Path, *, force: bool) -> None:
    if not os.path.lexists(destination):
        os.rename(staging, destination)
        return
    if not force:
        raise ConfigurationError(
            f"output {destination.name} appeared while the bundle was made",
            hint="use --force to replace it",
        )
    aside = staging.with_name(staging.name.removesuffix(".partial") + ".old")
    os.rename(destination, aside)
    try:
        os.rename(staging, destination)
    except BaseException:
        os.rename(aside, destination)
        raise
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back (they are delivered on exit) in the main thread."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)

"""Atomic publication of a bundle folder: all of it, or nothing.

Publishers of one destination are serialized by a lock file beside it (``.NAME.lock``,
held with ``flock`` from the first check to the last rename, and removed by its holder):
a second ``streamer bundle`` onto the same ``--output`` waits, then checks the
destination afresh (so without ``--force`` it finds the first run's bundle and stops).

The bundle is assembled in a temporary sibling of the destination (``.NAME.*.partial``).
A failure or an interruption (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) before it is in place
removes the temporary folder and leaves the destination as it was. A new destination is
one ``rename``. An existing one is replaced only when forced, and then, on Linux, by one
``renameat2(RENAME_EXCHANGE)``: a reader sees the old bundle or the new one, never none
and never a mix; the old one, now in the temporary folder, is then removed. Where the
exchange is not available (another system, a file system without it), the fallback is
two renames (the old bundle aside as ``.NAME.*.old``, the new one in), with a moment
between them when there is no bundle at the destination.

Signals are held back while folders are renamed or removed, so an interruption never
leaves a half-made swap or a half-removed folder behind; a signal that arrives before the
swap cancels it. Only SIGKILL or a crash can leave a temporary folder or the lock file
(which is never stale: the next run takes it over).

Files are created 0600 and folders 0700: a bundle can hold transcript text.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.output.publication import (
    DIRECTORY_MODE,
    PRIVATE_FILE_MODE,
    check_output_folder,
    fsync_folder,
    interrupt_pending,
    new_file,
    sibling_prefix,
    signals_held,
    temporary_sibling,
)

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _check_parent(destination: Path, option: str = "--output", what: str = "bundle") -> None:
    name = destination.name
    if not name or name in {".", "..", "-"}:
        raise ConfigurationError(f"{option} must name the {what} folder to create")
    check_output_folder(destination, option)


def _check_existing(
    destination: Path, *, force: bool, marker: str, option: str = "--output", what: str = "bundle"
) -> None:
    name = shown_path(destination)
    if not os.path.lexists(destination):
        return
    if not force:
        raise ConfigurationError(f"output {name} already exists", hint="use --force to replace it")
    if destination.is_symlink() or not destination.is_dir():
        raise ConfigurationError(f"output {name} exists and is not a folder; it is never replaced")
    if not (destination / marker).is_file() and any(destination.iterdir()):
        raise ConfigurationError(
            f"output {name} is a folder without {marker}, not a {what}; it is never replaced",
            hint=f"choose another {option}, or remove the folder yourself",
        )


def check_destination(
    destination: Path,
    *,
    force: bool,
    marker: str,
    option: str = "--output",
    what: str = "bundle",
) -> None:
    """Fail (a usage error, before any input is read) unless ``destination`` can be published.

    A folder holding ``marker`` (a bundle; for ``what`` else, its own file) or an empty
    folder may be replaced with ``force``; anything else is never replaced. ``option``
    names the command's option in messages.
    """
    _check_parent(destination, option, what)
    _check_existing(destination, force=force, marker=marker, option=option, what=what)


def lock_path(destination: Path) -> Path:
    """The lock file of the publishers of ``destination``: ``.NAME.lock`` beside it."""
    return destination.parent / (sibling_prefix(destination.name) + "lock")


def _is_file_at(descriptor: int, path: Path) -> bool:
    try:
        here = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    there = os.fstat(descriptor)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _discard_if_free(descriptor: int, path: Path) -> None:
    """After an interrupted wait: remove the lock file when nobody holds it."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return
    if _is_file_at(descriptor, path):
        os.unlink(path)


@contextlib.contextmanager
def publisher_lock(destination: Path) -> Iterator[None]:
    """Hold the lock of ``destination``'s publishers; waits while another run holds it.

    The holder removes the file before it lets go; a waiter that then holds a removed
    file tries again with the new one, so two runs never both hold the lock.
    """
    path = lock_path(destination)
    while True:
        descriptor = -1
        try:
            with signals_held():
                descriptor = os.open(
                    path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE_MODE
                )
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            if _is_file_at(descriptor, path):
                break
        except BaseException:
            if descriptor >= 0:
                with signals_held():
                    _discard_if_free(descriptor, path)
                    os.close(descriptor)
            raise
        os.close(descriptor)
    try:
        yield
    finally:
        with signals_held():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            os.close(descriptor)


@contextlib.contextmanager
def publishing(destination: Path, *, force: bool, marker: str) -> Iterator[None]:
    """The whole publication of ``destination``: its checks, under its publishers' lock."""
    _check_parent(destination)
    with publisher_lock(destination):
        _check_existing(destination, force=force, marker=marker)
        yield


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
        with new_file(path) as out:
            yield out
        self.files.append(relative)

    def write(self, relative: str, data: bytes) -> None:
        with self.create(relative) as out:
            out.write(data)

    def sync_folders(self) -> None:
        for folder in {(self.folder / relative).parent for relative in self.files}:
            fsync_folder(folder)


@contextlib.contextmanager
def staged_bundle(destination: Path, *, force: bool) -> Iterator[StagedBundle]:
    """Yield a ``StagedBundle``; when the block completes, it becomes ``destination``.
    Call it inside ``publishing(destination, ...)``."""
    parent = destination.parent
    staging: Path | None = None
    try:
        with signals_held():
            _, staging = temporary_sibling(
                parent, sibling_prefix(destination.name), ".partial", folder=True
            )
        staged = StagedBundle(staging)
        yield staged
        staged.sync_folders()
        with signals_held():
            if not interrupt_pending():
                _move_into_place(staging, destination, force=force)
                staging = None
        if staging is not None:
            raise KeyboardInterrupt  # not reached: the pending signal's handler raises first
        fsync_folder(parent)
    except BaseException:
        if staging is not None:
            with signals_held():
                shutil.rmtree(staging, ignore_errors=True)
        raise


def exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically with ``renameat2(RENAME_EXCHANGE)``; ``False`` (nothing
    done) where the system or the file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.argtypes.append(ctypes.c_uint)
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE):
        code = ctypes.get_errno()
        if code in {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}:
            return False
        raise OSError(code, os.strerror(code), os.fspath(second))
    return True


def _move_into_place(staging: Path, destination: Path, *, force: bool) -> None:
    if not os.path.lexists(destination):
        os.rename(staging, destination)
        return
    if not force:  # not reached under the publishers' lock, unless another tool made it
        raise ConfigurationError(
            f"output {shown_path(destination)} appeared while the bundle was made",
            hint="use --force to replace it",
        )
    if exchange(staging, destination):
        old = staging  # it now holds the old bundle
    else:
        old = staging.with_name(staging.name.removesuffix(".partial") + ".old")
        os.rename(destination, old)
        try:
            os.rename(staging, destination)
        except BaseException:
            os.rename(old, destination)
            raise
    shutil.rmtree(old, ignore_errors=True)

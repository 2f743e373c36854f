"""Publication of one file, the package's one atomic-file writer, and what it shares with
the publication of a bundle folder (``bundle_publication``).

What ``--output PATH`` does depends on what ``PATH`` is when the run starts (the policy
in ``docs/operations.md``, "Where output goes"):

- nothing: the result is written to a temporary sibling (a unique name made by
  ``temporary_sibling`` in the same folder), flushed to disk and renamed into place; then
  the folder is flushed too. A failed or interrupted write leaves neither a partial file
  nor the temporary one.
- a regular file: replaced the same way (it keeps nothing of the old file, not even its
  mode). A symbolic link to a regular file is followed: the file it names is replaced, in
  its own folder, and the link stays a link.
- a character device or a FIFO (``/dev/null``, a terminal, ``<(...)``'s counterpart
  ``>(...)``), or a name for one of this process's descriptors (``/dev/stdout``,
  ``/dev/fd/N``, ``/proc/self/fd/N``): written in place as a stream, as ``-`` is; never
  renamed over, never removed.
- anything else (a folder, a block device, a socket, a link to nothing): refused.

Published files and folders get the permissions the umask gives (as ``cp`` and ``mkdir``
would: ``FILE_MODE`` and ``DIRECTORY_MODE`` less the umask), so that a report served from a
web folder or shared with the group can be read. What only the run needs (a run's work
folder, with its copy of the transcript, and the response cache) is created private
(``PRIVATE_FILE_MODE``, ``PRIVATE_DIRECTORY_MODE``: owner only, whatever the umask).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError

FILE_MODE = 0o666  # less the umask, as open(2) applies it
DIRECTORY_MODE = 0o777  # less the umask, as mkdir(2) applies it
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIRECTORY_MODE = 0o700
_SIBLING_TRIES = 100
WRITE_BUFFER = 1 << 20
# The longest file name most file systems allow, in bytes.
NAME_MAX = 255
# mkstemp's random part (8 characters) and the longest suffix a sibling gets.
_SIBLING_RESERVE = 8 + len(".partial") + 8

# The signals that end a run the way Ctrl-C does (the CLI installs their handlers).
INTERRUPTING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT})

# A name for one of this process's open descriptors.
_OWN_DESCRIPTOR = re.compile(r"/(?:proc/self/fd|dev/fd)/(\d+)\Z")
_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def sibling_prefix(name: str) -> str:
    """``.NAME.``, shortened (at a character boundary) so that a temporary sibling's name
    (prefix, random part, suffix) stays within ``NAME_MAX`` bytes."""
    room = NAME_MAX - 2 - _SIBLING_RESERVE
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) > room:
        name = encoded[:room].decode("utf-8", "ignore")
    return f".{name}."


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold the interrupting signals back (they are delivered when the block ends)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTING_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def interrupt_pending() -> bool:
    """Whether an interrupting signal that is not ignored waits (inside ``signals_held``)."""
    pending = signal.sigpending() & INTERRUPTING_SIGNALS
    return any(signal.getsignal(signum) != signal.SIG_IGN for signum in pending)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename into it) to disk."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def _durable(descriptor: int) -> Iterator[IO[bytes]]:
    """A buffered binary file over ``descriptor``, flushed to disk when the block ends."""
    with os.fdopen(descriptor, "wb", buffering=WRITE_BUFFER) as out:
        yield out
        out.flush()
        os.fsync(out.fileno())


def temporary_sibling(
    directory: Path, prefix: str, suffix: str, *, folder: bool = False, private: bool = False
) -> tuple[int, Path]:
    """Create a new file (an open descriptor) or, with ``folder``, a new folder (``-1``)
    under a unique name in ``directory``: ``tempfile.mkstemp``'s and ``mkdtemp``'s work, but
    with the mode a published file or folder gets (the umask's), or the owner's alone
    when ``private``."""
    for _ in range(_SIBLING_TRIES):
        path = directory / f"{prefix}{secrets.token_hex(4)}{suffix}"
        try:
            if folder:
                os.mkdir(path, PRIVATE_DIRECTORY_MODE if private else DIRECTORY_MODE)
                return -1, path
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
            return os.open(path, flags, PRIVATE_FILE_MODE if private else FILE_MODE), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary name in {directory}")


@contextlib.contextmanager
def new_file(path: Path, *, private: bool = False) -> Iterator[IO[bytes]]:
    """A file that must not exist yet (in a folder only this run writes), flushed to
    disk when the block ends."""
    mode = PRIVATE_FILE_MODE if private else FILE_MODE
    with _durable(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)) as out:
        yield out


@contextlib.contextmanager
def atomic_file(path: Path, *, private: bool = False) -> Iterator[IO[bytes]]:
    """Yield a buffered binary file; on success it replaces ``path`` atomically. It gets
    the umask's permissions, or the owner's alone when ``private``."""
    directory = path.parent
    temporary: Path | None = None
    try:
        with signals_held():
            descriptor, temporary = temporary_sibling(
                directory, sibling_prefix(path.name), ".partial", private=private
            )
        with _durable(descriptor) as out:
            yield out
        os.replace(temporary, path)
    except BaseException:
        if temporary is not None:
            with signals_held(), contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise
    fsync_folder(directory)


@dataclass(frozen=True)
class Destination:
    """Where ``--output PATH`` goes (see the module's policy).

    ``path`` is what is written: the file itself, or the regular file a link names.
    ``descriptor`` is set when ``PATH`` names one of this process's open descriptors;
    ``stream`` when it is written in place; ``identity`` is the ``(device, inode)`` of an
    existing regular file, so that an input is never published over.
    """

    path: Path
    stream: bool = False
    descriptor: int | None = None
    identity: tuple[int, int] | None = None


def _own_descriptor(path: str) -> int | None:
    absolute = os.path.abspath(path)
    if absolute in _STANDARD:
        return _STANDARD[absolute]
    match = _OWN_DESCRIPTOR.match(absolute)
    return int(match.group(1)) if match else None


def _through_proc(path: str) -> bool:
    """Whether ``path`` is, or links through, a descriptor link under ``/proc``."""
    current = os.path.abspath(path)
    for _ in range(40):
        if current.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def check_output_folder(destination: str | os.PathLike[str], option: str = "--output") -> None:
    """The folder that will hold ``destination`` exists and can be written: else an error
    naming that folder as the user's path names it (streamer does not create it: a
    mistyped path would scatter copies of the transcript)."""
    given = os.fspath(destination)
    parent = os.path.dirname(given.rstrip("/")) or "."
    if not os.path.isdir(parent):
        shown = shown_path(parent)
        raise ConfigurationError(
            f"the folder {shown} of {option} {shown_path(given)} does not exist",
            hint=f"create it first: mkdir -p {shown}",
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigurationError(
            f"the folder {shown_path(parent)} of {option} {shown_path(given)} is not writable "
            "and searchable",
            hint="it needs write and execute (search) permission",
        )


def resolve_destination(output: str | os.PathLike[str]) -> Destination:
    """Decide, before anything is read, how ``output`` is published; a
    ``ConfigurationError`` when it never can be."""
    path = Path(output)
    name = shown_path(output)
    if not path.name or path.name in {".", ".."}:
        raise ConfigurationError(f"output {name} is a directory", hint="name a file")
    descriptor = _own_descriptor(os.fspath(path))
    if descriptor is not None:
        try:
            mode = os.fstat(descriptor).st_mode
        except OSError:
            raise ConfigurationError(f"output {name} names a descriptor that is not open") from None
        if stat.S_ISDIR(mode):
            raise ConfigurationError(f"output {name} is a directory", hint="name a file")
        return Destination(path, stream=True, descriptor=descriptor)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ConfigurationError(
                f"output {name} is a symbolic link to nothing; it is never replaced",
                hint="create the file it names, or remove the link",
            ) from None
        check_output_folder(output)
        return Destination(path)
    except PermissionError:
        check_output_folder(output)
        raise ConfigurationError(f"output {name} cannot be examined (permission denied)") from None
    except OSError as error:
        raise ConfigurationError(f"output {name} cannot be used ({error.strerror})") from None
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        raise ConfigurationError(f"output {name} is a directory", hint="name a file")
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return Destination(path, stream=True)
    identity = (status.st_dev, status.st_ino)
    if stat.S_ISREG(mode):
        if _through_proc(os.fspath(path)):
            return Destination(path, stream=True, identity=identity)
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        check_output_folder(target)
        return Destination(target, identity=identity)
    kind = "a block device" if stat.S_ISBLK(mode) else "not a regular file"
    raise ConfigurationError(f"output {name} is {kind}; it is never written or replaced")


@contextlib.contextmanager
def _stream(destination: Destination) -> Iterator[IO[bytes]]:
    if destination.descriptor is not None:
        descriptor = os.dup(destination.descriptor)
    else:
        flags = os.O_WRONLY | os.O_NOCTTY
        if stat.S_ISREG(os.stat(destination.path).st_mode):
            flags |= os.O_TRUNC  # a regular file behind a descriptor link, as '>' would
        descriptor = os.open(destination.path, flags)
    with os.fdopen(descriptor, "wb", buffering=WRITE_BUFFER) as out:
        yield out


def standard_output() -> IO[bytes]:
    """Standard output, as bytes; a ``ConfigurationError`` when it was closed (``>&-``)."""
    if sys.stdout is None:
        raise ConfigurationError(
            "standard output is closed",
            hint="redirect it (> /dev/null discards it), or use --output FILE",
        )
    return sys.stdout.buffer


def publish(destination: str | Destination, write: Callable[[IO[bytes]], None]) -> None:
    """Run ``write`` into ``destination``: ``-`` (standard output), a path, or a
    ``Destination`` already resolved by ``resolve_destination``."""
    if destination == "-":
        out = standard_output()
        write(out)
        out.flush()
        return
    if isinstance(destination, str):
        destination = resolve_destination(destination)
    opened = _stream(destination) if destination.stream else atomic_file(destination.path)
    with opened as out:
        write(out)

"""The files of a bundle folder, and reading a small document whole.

Only regular files are read: a FIFO would block the check, a symbolic link could lead
outside the bundle, and neither is something ``streamer bundle`` writes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, Any

import orjson

from streamer.framework.kinds.lane_outputs import LANE_OUTPUT_MAX_BYTES
from streamer.framework.regular_files import MIB, describe_bound
from streamer.validation.bundle_report import BundleReport

INDEX_MAX_BYTES = 16 * MIB  # about 60,000 lane descriptors
LANE_PAYLOAD_MAX_BYTES = LANE_OUTPUT_MAX_BYTES  # what streamer bundle reads as a lane output
NOT_REGULAR = "is not a regular file (a link, FIFO or device): streamer bundle writes none"


def present_files(folder: Path) -> dict[str, bool]:
    """Every file under ``folder`` by relative path: ``True`` when it is a regular file
    (not a symbolic link, FIFO, socket or device)."""
    present: dict[str, bool] = {}
    for root, _, files in os.walk(folder):
        relative = Path(root).relative_to(folder)
        for name in files:
            mode = os.lstat(Path(root) / name).st_mode
            present[(relative / name).as_posix()] = stat.S_ISREG(mode)
    return present


class Unreadable(Exception):
    """A document that is not JSON or cannot be read (already reported)."""


def open_document(folder: Path, file: str, report: BundleReport) -> IO[bytes]:
    """The open file (binary), or ``Unreadable`` after reporting why.

    Opened without following a link and without blocking (a FIFO put in its place after
    the folder was listed cannot hang the check), then checked to be a regular file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
    try:
        descriptor = os.open(folder / file, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:  # a symbolic link
            report.problem(file, NOT_REGULAR)
        else:
            report.problem(file, f"cannot be read ({error.strerror})")
        raise Unreadable(file) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        report.problem(file, NOT_REGULAR)
        raise Unreadable(file)
    return os.fdopen(descriptor, "rb")


def read_document(folder: Path, file: str, report: BundleReport, limit: int) -> Any:
    """The parsed JSON of a small document (index, lane payload), at most ``limit`` bytes,
    or ``Unreadable``."""
    with open_document(folder, file, report) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            report.problem(file, f"cannot be read ({error.strerror})")
            raise Unreadable(file) from None
    if len(data) > limit:
        report.problem(file, f"is larger than its bound of {describe_bound(limit)}")
        raise Unreadable(file)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        report.problem(file, "not valid JSON")
        raise Unreadable(file) from None

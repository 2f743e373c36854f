"""The files of a bundle folder, and reading a small document whole.

Only regular files are read: a FIFO would block the check, a symbolic link could lead
outside the bundle, and neither is something ``streamer bundle`` writes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import orjson

from streamer.validation.report import BundleReport


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


def open_document(folder: Path, file: str, report: BundleReport) -> Any:
    """The open file (binary), or ``Unreadable`` after reporting why."""
    try:
        return (folder / file).open("rb")
    except OSError as error:
        report.problem(file, f"cannot be read ({error.strerror})")
        raise Unreadable(file) from None


def read_document(folder: Path, file: str, report: BundleReport) -> Any:
    """The parsed JSON of a small document (index, lane payload), or ``Unreadable``."""
    with open_document(folder, file, report) as handle:
        try:
            data = handle.read()
        except OSError as error:
            report.problem(file, f"cannot be read ({error.strerror})")
            raise Unreadable(file) from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        report.problem(file, "not valid JSON")
        raise Unreadable(file) from None

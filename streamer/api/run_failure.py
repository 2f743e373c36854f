"""What a failed or interrupted ``streamer run`` leaves behind, and says: the work folder
is removed when no stage completed (nothing to resume) or with ``clean``, else kept, and
the error's message says so (``WorkKept``)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from streamer.api import stages
from streamer.api.work_folder import WorkFolder
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import StreamerError

WORK_SUFFIX = ".work"


class WorkKept:
    """What a failed or interrupted run left behind, for its message: ``None`` when nothing
    was kept, else the work folder (as the user named the output) and its size."""

    def __init__(self, folder: str, size: int) -> None:
        self.folder = folder
        self.size = size

    def note(self) -> str:
        return (
            f"nothing published; kept {self.folder} ({_size(self.size)}, a copy of the "
            "transcript) to resume: run the same command again, or add --clean to remove it"
        )


def _size(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    raise AssertionError  # pragma: no cover


def folder_size(folder: Path) -> int:
    """The bytes of the files under ``folder``."""
    total = 0
    for child in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if child.is_file() and not child.is_symlink():
                total += child.stat().st_size
    return total


def work_output(output: str | os.PathLike[str]) -> str:
    """The work folder's path as the user named the output (``out/s`` -> ``out/s.work``)."""
    return os.fspath(output).rstrip("/") + WORK_SUFFIX


def after_failure(
    work: WorkFolder, output: str | os.PathLike[str], *, clean: bool
) -> WorkKept | None:
    """Remove the work folder when nothing in it can be resumed (no stage completed), or
    when ``clean``; else say what is kept."""
    completed = any(work.record(stage.name) is not None for stage in stages.STAGES)
    if clean or not completed:
        shutil.rmtree(work.root, ignore_errors=True)
        return None
    return WorkKept(shown_path(work_output(output)), folder_size(work.root))


def with_note(error: BaseException, kept: WorkKept | None) -> None:
    """Attach what was kept to the error the CLI prints: to a ``StreamerError``'s hint, to
    an interruption as its note (``streamer: interrupted (...)``)."""
    if kept is None:
        return  # nothing kept: the CLI's line needs no more (an interruption says so)
    note = kept.note()
    if isinstance(error, StreamerError):
        error.hint = note if error.hint is None else f"{error.hint}; {note}"
    else:
        error.add_note(note)

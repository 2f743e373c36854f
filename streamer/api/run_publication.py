"""The end of ``streamer run``: the bundle and the report the work folder holds,
published beside it (by hard links where the file system allows, else copies), unless
what is there is already the same (a rerun)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from streamer.api.work_folder import tree_digest
from streamer.output.bundle_documents import INDEX_FILE
from streamer.output.bundle_publication import publishing, staged_bundle
from streamer.output.publication import DIRECTORY_MODE


class Digests:
    """Digests of the files and folders a run reads, computed once unless rewritten."""

    def __init__(self) -> None:
        self._known: dict[Path, str] = {}

    def of(self, path: Path) -> str:
        if path not in self._known:
            self._known[path] = tree_digest(path)
        return self._known[path]

    def set(self, path: Path, digest: str) -> None:
        self._known[path] = digest


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def publish_bundle(built: Path, output: Path, known: Digests) -> None:
    if os.path.lexists(output) and tree_digest(output) == known.of(built):
        return
    with (
        publishing(output, force=True, marker=INDEX_FILE),
        staged_bundle(output, force=True) as staged,
    ):
        for path in sorted(built.rglob("*")):
            relative = path.relative_to(built).as_posix()
            if path.is_dir():
                os.mkdir(staged.folder / relative, DIRECTORY_MODE)
            else:
                _link_or_copy(path, staged.folder / relative)
                staged.files.append(relative)


def publish_report(built: Path, report: Path, known: Digests) -> None:
    if report.is_file() and tree_digest(report) == known.of(built):
        return
    temporary = report.with_name(f".{report.name}.{os.getpid()}.partial")
    try:
        _link_or_copy(built, temporary)
        os.replace(temporary, report)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise

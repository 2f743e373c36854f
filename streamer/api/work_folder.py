"""The work folder of ``streamer run``: the stages' intermediate files, and one small JSON
record per stage saying what it read, how it was configured and what it wrote, by digest.

A stage whose record matches (same input digests, same configuration digest, its outputs
still there with the recorded digests) is not run again. A record is written atomically,
after the stage's outputs are in place: a run interrupted in a stage leaves no record for
it, so the rerun runs that stage again (and nothing before it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.json.canonical import DIGEST_PREFIX, canonical
from streamer.output.publication import PRIVATE_DIRECTORY_MODE, atomic_file

RECORD_VERSION = 1
RECORDS = "stages"
ABSENT = "absent"
_READ_SIZE = 1 << 20


class StageRecord(msgspec.Struct, forbid_unknown_fields=True):
    """``stages/<stage>.json``: what a completed stage read, how, and what it wrote."""

    version: int
    stage: str
    inputs: dict[str, str]
    configuration: str
    outputs: dict[str, str]
    counts: dict[str, Any]
    seconds: float


def value_digest(value: Any) -> str:
    """``sha256:`` and the hex SHA-256 of the canonical JSON of ``value``."""
    return DIGEST_PREFIX + hashlib.sha256(canonical(value)).hexdigest()


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb", buffering=0) as stream:
        buffer = bytearray(_READ_SIZE)
        view = memoryview(buffer)
        while size := stream.readinto(buffer):
            digest.update(view[:size])
    return DIGEST_PREFIX + digest.hexdigest()


def tree_digest(path: Path) -> str:
    """The digest of a file, of a folder (every file under it, by ``/``-separated relative
    path, sorted), or ``absent``."""
    if path.is_file():
        return file_digest(path)
    if not path.is_dir():
        return ABSENT
    files = sorted(
        (child.relative_to(path).as_posix(), child) for child in path.rglob("*") if child.is_file()
    )
    return value_digest([[relative, file_digest(child)] for relative, child in files])


class WorkFolder:
    """The folder holding a run's intermediate files and its stage records."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def create(self, *folders: str, given: str | None = None) -> None:
        """Make the folder and its ``folders`` (owner-only, as everything holding
        transcript text). ``given``: the folder's path as the user's ``--output`` names it,
        for the messages."""
        named = given or os.fspath(self.root)
        shown = shown_path(named)
        if not self.root.parent.is_dir():
            parent = shown_path(os.path.dirname(named) or os.fspath(self.root.parent))
            raise ConfigurationError(
                f"the folder {parent} of --output does not exist (streamer does not create "
                "it: a mistyped path would scatter transcript copies)",
                hint=f"create it: mkdir -p {parent}",
            )
        if os.path.lexists(self.root) and not self.root.is_dir():
            raise ConfigurationError(f"work folder {shown} exists and is not a folder")
        for folder in (self.root, *(self.root / name for name in (RECORDS, *folders))):
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, PRIVATE_DIRECTORY_MODE)

    def path(self, name: str) -> Path:
        return self.root / name

    def _record_path(self, stage: str) -> Path:
        return self.root / RECORDS / f"{stage}.json"

    def record(self, stage: str) -> StageRecord | None:
        """The record of ``stage``, or ``None`` when it has none (or an unreadable one,
        which only means the stage runs again)."""
        try:
            data = self._record_path(stage).read_bytes()
            record = msgspec.json.decode(data, type=StageRecord)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        return record if record.version == RECORD_VERSION and record.stage == stage else None

    def write_record(self, record: StageRecord) -> None:
        with atomic_file(self._record_path(record.stage)) as out:
            out.write(msgspec.json.encode(record) + b"\n")

    def forget(self, stage: str) -> None:
        """Remove the record of ``stage`` (before the stage runs again)."""
        self._record_path(stage).unlink(missing_ok=True)

    def outputs_match(self, record: StageRecord) -> bool:
        """Whether every output of ``record`` is still there with its recorded digest."""
        return all(
            tree_digest(self.path(name)) == digest for name, digest in record.outputs.items()
        )


def digests(paths: Mapping[str, Path]) -> dict[str, str]:
    """The digest of each named input (see ``tree_digest``)."""
    return {name: tree_digest(path) for name, path in paths.items()}

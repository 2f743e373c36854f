"""Writing a notes vault incrementally, never over what a person wrote.

``.streamer/vault.json`` in the vault records the SHA-256 of each note as streamer last
wrote it. Writing the vault again (``update_vault``):

- a note whose bytes are already the new ones is not touched (same file, same mtime);
- a note that still holds what streamer last wrote (its hash recorded) is replaced;
- a note a person edited (its hash is not the recorded one), or a file streamer never
  wrote, is kept, unless ``force``; it is named in ``VaultChanges.kept``;
- a note streamer no longer writes (a session removed) is removed when unedited, kept
  (and named) when edited.

Each note is replaced atomically; the record is written last, and only when it changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from streamer.framework.json.canonical import canonical
from streamer.output.publication import atomic_file

STATE_FILE = ".streamer/vault.json"
STATE_KIND = "streamer/notes-vault"


class _State(msgspec.Struct, frozen=True):
    artifact_kind: str
    notes: dict[str, str]  # note path -> SHA-256 of the bytes streamer wrote


@dataclass(frozen=True)
class VaultChanges:
    """What ``update_vault`` did, by note path (sorted)."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    kept: tuple[str, ...]  # edited by a person (or not streamer's): left as they are
    removed: tuple[str, ...]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_state(root: Path) -> dict[str, str]:
    try:
        return dict(msgspec.json.decode((root / STATE_FILE).read_bytes(), type=_State).notes)
    except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
        return {}


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as out:
        out.write(data)


def update_vault(root: Path, notes: Mapping[str, bytes], *, force: bool) -> VaultChanges:
    """Write ``notes`` (path in the vault -> bytes) into the vault ``root``."""
    state = _read_state(root)
    recorded: dict[str, str] = {}
    written, unchanged, kept, removed = [], [], [], []
    for name, data in sorted(notes.items()):
        path = root / name
        current = _current(path)
        if current == data:
            unchanged.append(name)
        elif current is None or force or state.get(name) == _digest(current):
            _write(path, data)
            written.append(name)
        else:
            kept.append(name)
            if name in state:
                recorded[name] = state[name]
            continue
        recorded[name] = _digest(data)
    for name in sorted(set(state) - set(notes)):
        path = root / name
        current = _current(path)
        if current is not None and _digest(current) != state[name]:
            kept.append(name)
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(OSError):
            os.rmdir(path.parent)  # a folder left empty
        removed.append(name)
    new_state = canonical({"artifact_kind": STATE_KIND, "notes": recorded}) + b"\n"
    if _current(root / STATE_FILE) != new_state:
        _write(root / STATE_FILE, new_state)
    return VaultChanges(tuple(written), tuple(unchanged), tuple(sorted(kept)), tuple(removed))

"""Validated answers on disk: a rerun after a crash, Ctrl-C or a change of lanes asks only
for what is missing.

An entry is ``<cache-dir>/<lane_id>/<key>.json``, ``{"records": [...]}``: the records of
one chunk's validated answer, as JSON-ready model-facing records. ``key`` is the SHA-256
of everything the answer depends on: the lane, the kind (and its version), the prompt's
version, the engine, the model, the request parameters (structured output mode,
temperature) and the chunk's content (its units as shown to the model). A change to any
of them asks again; nothing else does (the chunk's ID is not part of it).

Entries are written atomically (a temporary sibling renamed into place), owner-only; an
entry that does not read back as the kind's records (a crash cannot leave one, a person
can) is asked again and replaced. The key's inputs are never stored, and neither is
anything the server sent besides the records: no prompt, no key, no usage.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import msgspec

from streamer.extraction.responses import InvalidAnswer, parse_records
from streamer.framework.kinds.registry import ArtifactKind
from streamer.output.publication import PRIVATE_DIRECTORY_MODE, atomic_file

CACHE_FORMAT = 1


def cache_key(
    *,
    lane_id: str,
    kind: ArtifactKind[Any],
    prompt_id: str,
    engine: str,
    model: str,
    parameters: dict[str, Any],
    chunk_digest: str,
) -> str:
    identity = {
        "format": CACHE_FORMAT,
        "lane_id": lane_id,
        "artifact_kind": kind.name,
        "kind_version": kind.version,
        "prompt": prompt_id,
        "engine": engine,
        "model": model,
        "parameters": parameters,
        "chunk": chunk_digest,
    }
    encoded = msgspec.json.encode(identity, order="sorted")
    return hashlib.sha256(encoded).hexdigest()


class ResponseCache:
    """The cache folder of one run. ``read`` and ``write`` by lane and key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, lane_id: str, key: str) -> Path:
        return self.folder / lane_id / f"{key}.json"

    def read(self, kind: ArtifactKind[Any], lane_id: str, key: str) -> list[dict[str, Any]] | None:
        """The cached records, or ``None`` when there is no valid entry."""
        try:
            data = self._path(lane_id, key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        try:
            return parse_records(kind, msgspec.json.decode(data))
        except (msgspec.DecodeError, InvalidAnswer):
            return None

    def write(self, lane_id: str, key: str, records: list[dict[str, Any]]) -> None:
        folder = self.folder / lane_id
        os.makedirs(folder, mode=PRIVATE_DIRECTORY_MODE, exist_ok=True)
        with atomic_file(self._path(lane_id, key), private=True) as out:
            out.write(msgspec.json.encode({"records": records}))

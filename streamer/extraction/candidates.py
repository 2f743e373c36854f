"""The candidates file of a lane: ``<output-dir>/<lane_id>.jsonl``.

The first line is the header (``lane_id``, ``artifact_kind``, ``source``, ``extractor``:
``engine``, ``model``, ``prompt``; no ``model`` for the rules, whose ``prompt`` is the rules'
version), every other line one candidate (``chunk_id``,
``record``), compact JSON, ordered by chunk and then by position in the chunk's answer.
The file is written atomically and owner-only: it holds values taken from the transcript.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from streamer.framework.canonical_json import compact
from streamer.output.publication import atomic_file


def candidates_path(folder: Path, lane_id: str) -> Path:
    return folder / f"{lane_id}.jsonl"


def header(
    lane_id: str,
    kind_name: str,
    document_id: str,
    semantic_digest: str,
    engine: str,
    model: str | None,
    prompt: str,
) -> dict[str, Any]:
    extractor = {"engine": engine, "model": model, "prompt": prompt}
    if model is None:  # the rules: no model
        del extractor["model"]
    return {
        "lane_id": lane_id,
        "artifact_kind": kind_name,
        "source": {"document_id": document_id, "semantic_digest": semantic_digest},
        "extractor": extractor,
    }


def write_candidates(
    path: Path,
    head: dict[str, Any],
    candidates: Iterable[tuple[str, list[dict[str, Any]]]],
) -> int:
    """Write the header, then each chunk's records in order; the number of candidates."""
    count = 0
    with atomic_file(path) as out:
        out.write(compact(head) + b"\n")
        for chunk_id, records in candidates:
            for record in records:
                out.write(compact({"chunk_id": chunk_id, "record": record}) + b"\n")
                count += 1
    return count

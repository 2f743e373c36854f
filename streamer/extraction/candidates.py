"""The candidates file of a lane: ``<output-dir>/<lane_id>.jsonl``.

The first line is the header (``lane_id``, ``artifact_kind``, ``source``, ``extractor``:
``engine``, ``model``, ``prompt``; no ``model`` for the rules, whose ``prompt`` is the rules'
version), every other line one candidate (``chunk_id``,
``record``), compact JSON, ordered by chunk and then by position in the chunk's answer.
The file is written atomically and owner-only: it holds values taken from the transcript.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from streamer.framework.json.canonical import compact
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


class CandidatesWriter:
    """A candidates file being written: its header, then ``add`` each chunk's records in
    chunk order; published (atomically) when the ``candidates_file`` block ends."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self.count = 0

    def add(self, chunk_id: str, records: list[dict[str, Any]]) -> None:
        for record in records:
            self._out.write(compact({"chunk_id": chunk_id, "record": record}) + b"\n")
            self.count += 1


@contextlib.contextmanager
def candidates_file(path: Path, head: dict[str, Any]) -> Iterator[CandidatesWriter]:
    """Write the candidates file ``path``: ``head``, then what is added to the writer."""
    with atomic_file(path) as out:
        out.write(compact(head) + b"\n")
        yield CandidatesWriter(out)

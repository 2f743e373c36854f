"""The candidates file of a lane: ``<output-dir>/<lane_id>.jsonl``.

The first line is the header (``lane_id``, ``artifact_kind``, ``source``, ``extractor``:
``engine``, ``model``, ``prompt``; no ``model`` for the rules, whose ``prompt`` is the rules'
version), every other line one candidate (``chunk_id``,
``record``), compact JSON, ordered by chunk and then by position in the chunk's answer.
A lane with several engines has ``extractors`` (one ``extractor`` each, in the lane's
order) instead of ``extractor``, and each candidate names its engine (``chunk_id``,
``engine``, ``record``), a chunk's candidates engine by engine.
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


Extractor = tuple[str, str, str, str | None, str]
"""(lane ID, kind name, engine, model, prompt): one engine of one lane, as ``header`` takes."""


def lane_headers(
    document_id: str, semantic_digest: str, extractors: list[Extractor]
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Each lane's header (in the order the lanes come) and the lanes with several
    engines (adjacent in ``extractors``), whose header has ``extractors`` (one
    ``extractor`` each, in order) instead of ``extractor``."""
    heads: dict[str, list[dict[str, Any]]] = {}
    for lane_id, kind_name, engine, model, prompt in extractors:
        head = header(lane_id, kind_name, document_id, semantic_digest, engine, model, prompt)
        heads.setdefault(lane_id, []).append(head)
    several = {lane_id for lane_id, each in heads.items() if len(each) > 1}
    merged = {lane_id: each[0] for lane_id, each in heads.items()}
    for lane_id in several:
        first = {key: value for key, value in merged[lane_id].items() if key != "extractor"}
        merged[lane_id] = {**first, "extractors": [head["extractor"] for head in heads[lane_id]]}
    return merged, several


class CandidatesWriter:
    """A candidates file being written: its header, then ``add`` each chunk's records in
    chunk order; published (atomically) when the ``candidates_file`` block ends."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self.count = 0

    def add(self, chunk_id: str, records: list[dict[str, Any]], engine: str | None = None) -> None:
        """``engine``: the engine that found them, in a file of several engines."""
        for record in records:
            line = {"chunk_id": chunk_id, "record": record}
            if engine is not None:
                line = {"chunk_id": chunk_id, "engine": engine, "record": record}
            self._out.write(compact(line) + b"\n")
            self.count += 1


@contextlib.contextmanager
def candidates_file(path: Path, head: dict[str, Any]) -> Iterator[CandidatesWriter]:
    """Write the candidates file ``path``: ``head``, then what is added to the writer."""
    with atomic_file(path) as out:
        out.write(compact(head) + b"\n")
        yield CandidatesWriter(out)

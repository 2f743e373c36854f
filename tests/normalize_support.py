"""Builders for the normalize tests: candidates files and normalize runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from streamer import api
from streamer.api.normalization import NormalizeResult
from tests.support import KIND_OF_LANE, REPO, Case, Run, invoke, write_case

CANDIDATES_FIXTURE = REPO / "fixtures" / "demo" / "candidates"


def header(lane_id: str, document_id: str, digest: str) -> dict[str, Any]:
    return {
        "lane_id": lane_id,
        "artifact_kind": KIND_OF_LANE[lane_id],
        "source": {"document_id": document_id, "semantic_digest": digest},
        "extractor": {"engine": "test"},
    }


def candidate(chunk_id: str, record: Any) -> dict[str, Any]:
    return {"chunk_id": chunk_id, "record": record}


def write_candidates(
    folder: Path,
    lane_id: str,
    case: Case,
    lines: Sequence[dict[str, Any] | bytes],
    *,
    head: dict[str, Any] | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lane_id}.jsonl"
    first = head if head is not None else header(lane_id, case.document_id, case.digest)
    body = [line if isinstance(line, bytes) else orjson.dumps(line) for line in lines]
    path.write_bytes(b"".join(item + b"\n" for item in [orjson.dumps(first), *body]))
    return folder


def source_case(
    root: Path,
    ids: Sequence[str],
    lanes: Sequence[str],
    *,
    text: Callable[[str], str] | None = None,
    support: str | None = None,
    **chunking: int,
) -> Case:
    """A source document of ``ids`` and a configuration of ``lanes`` (no lane outputs);
    ``text`` gives each unit's text, ``support`` the support policy."""
    config: dict[str, Any] = {
        "pipeline": {"lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in lanes]}
    }
    if chunking:
        config["pipeline"]["chunking"] = chunking
    if support is not None:
        config["pipeline"]["normalization"] = {"support": support}
    from tests.support import units

    made = units(ids)
    if text is not None:
        for item in made:
            item["text"] = text(item["unit_id"])
    return write_case(root, made, {}, config=config)


def normalize(
    case: Case, candidates: Path, output: Path, **options: Any
) -> tuple[NormalizeResult, list[str]]:
    warnings: list[str] = []
    result = api.normalize(
        api.load_config(case.config),
        case.source,
        candidates,
        output,
        warn=warnings.append,
        **options,
    )
    return result, warnings


def normalize_cli(case: Case, candidates: Path, output: Path, *extra: str) -> Run:
    return invoke(
        [
            "normalize",
            "--config",
            str(case.config),
            "--source",
            str(case.source),
            "--candidates-dir",
            str(candidates),
            "--output-dir",
            str(output),
            *extra,
        ]
    )


def records(output: Path, lane_id: str) -> list[dict[str, Any]]:
    document = orjson.loads((output / f"{lane_id}.json").read_bytes())
    found: list[dict[str, Any]] = document["records"]
    return found


def rejections(output: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (output / "rejections.jsonl").read_bytes().splitlines()]

"""Helpers for the bundle, schema and validation tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import yaml
from jsonschema import Draft202012Validator

from streamer.output.schema_catalog import load_schema
from tests.support import CRD3, REPO, Case, Run, invoke, write_case

DEMO = REPO / "fixtures" / "demo"
CRD3_EPISODES = sorted((CRD3 / "episodes").glob("*.json")) if CRD3.is_dir() else []


def bundle_args(case: Case, output: Path, *extra: str, source: str | None = None) -> list[str]:
    return [
        "bundle",
        "--config",
        str(case.config),
        "--source",
        source or str(case.source),
        "--lanes-dir",
        str(case.lanes_dir),
        "--output",
        str(output),
        *extra,
    ]


def run_bundle(case: Case, output: Path, *extra: str, stdin: bytes | None = None) -> Run:
    return invoke(
        bundle_args(case, output, *extra, source="-" if stdin is not None else None), input=stdin
    )


def demo_case() -> Case:
    return Case(
        DEMO,
        DEMO / "streamer.yaml",
        DEMO / "session.jsonl",
        DEMO / "lanes",
        "demo-slayers-take",
        "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6",
    )


def bundle_files(folder: Path) -> dict[str, bytes]:
    """Every file of a bundle folder by relative path."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def receipt(run: Run) -> dict[str, Any]:
    assert run.status == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1, run.stdout
    document: dict[str, Any] = orjson.loads(lines[0])
    return document


@cache
def validator(schema_id: str) -> Draft202012Validator:
    """The third-party validator for a shipped schema (format checking off)."""
    return Draft202012Validator(load_schema(schema_id))


def schema_errors(document: Any, schema_id: str) -> list[str]:
    return sorted(
        f"{error.json_path}: {error.validator}"
        for error in validator(schema_id).iter_errors(document)
    )


def assert_bundle_matches_schemas(folder: Path) -> None:
    """Every document of the bundle satisfies the schema its index descriptor names."""
    index = orjson.loads((folder / "index.json").read_bytes())
    assert schema_errors(index, "notarius.output.index") == []
    descriptors = [*index["lanes"], index["chunk_map"]]
    if "evidence_context" in index:
        descriptors.append(index["evidence_context"])
    for descriptor in descriptors:
        document = orjson.loads((folder / descriptor["file"]).read_bytes())
        assert schema_errors(document, descriptor["schema"]["id"]) == [], descriptor["file"]


def crd3_case(root: Path, episode: Path, *, window: int = 2) -> Case:
    """A CRD3 episode as a source document (one unit a turn: unit ID from the turn NUMBER,
    speakers joined, utterances joined by a space) and its summary alignments as a
    ``scene-descriptions`` lane citing TURN START..TURN END, allowlisted for evidence."""
    turns = json.loads(episode.read_text(encoding="utf-8"))["TURNS"]
    doc_units = [
        {
            "unit_id": f"t{turn['NUMBER']}",
            "kind": "utterance",
            "text": " ".join(turn["UTTERANCES"]),
            "metadata": {"speaker": ", ".join(turn["NAMES"])},
        }
        for turn in turns
    ]
    alignments = CRD3 / "alignments" / f"{episode.stem}_2_0.json"
    scenes = [
        {
            "scene_id": f"scene-{index:04d}",
            "location": None,
            "source_ref": {
                "start_unit_id": f"t{item['ALIGNMENT']['TURN START']}",
                "end_unit_id": f"t{item['ALIGNMENT']['TURN END']}",
            },
        }
        for index, item in enumerate(json.loads(alignments.read_text(encoding="utf-8")))
    ]
    return write_case(
        root,
        doc_units,
        {"scene-descriptions": scenes},
        window=window,
        document_id=f"crd3-{episode.stem.lower()}",
    )


def write_config(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path

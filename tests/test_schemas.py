"""The shipped JSON Schemas: well-formed, in step with the code, agreeing with the lane
parsers, validating real output (with a third-party validator), and ``streamer schema``.

Regenerate the lane payload schema files after changing a kind's record schema with
``STREAMER_WRITE_SCHEMAS=1 .venv/bin/pytest tests/test_schemas.py``.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from streamer import api
from streamer.framework.errors.types import LaneOutputError
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.kinds.lane_schema import lane_payload_schema
from tests.bundle_support import (
    CRD3_EPISODES,
    DEMO,
    assert_bundle_matches_schemas,
    crd3_case,
    demo_case,
    receipt,
    run_bundle,
    schema_errors,
)
from tests.support import REPO, invoke, ref, spell, units, write_case

SCHEMAS = REPO / "streamer" / "output" / "schemas"
GENERIC = [
    "notarius.evaluation.reference",
    "notarius.output.index",
    "notarius.review",
    "notarius.source.chunk_map",
    "notarius.source.evidence_context",
    "streamer.campaign.registry",
]
# The lines of normalization's inputs and outputs: JSON Lines, no schema identity member.
LINES = [
    "notarius.normalization.candidate",
    "notarius.normalization.candidates_header",
    "notarius.normalization.rejection",
]


def schema_file_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def test_lane_payload_schema_files_are_generated_from_the_kind_declarations() -> None:
    generated = {kind.schema.id: lane_payload_schema(kind) for kind in api.default_registry()}
    if os.environ.get("STREAMER_WRITE_SCHEMAS") == "1":
        for schema_id, schema in generated.items():
            (SCHEMAS / f"{schema_id}.json").write_text(schema_file_text(schema), encoding="utf-8")
    assert sorted(generated) == sorted(kind.schema.id for kind in api.default_registry())
    for schema_id, schema in generated.items():
        assert (SCHEMAS / f"{schema_id}.json").read_text(encoding="utf-8") == schema_file_text(
            schema
        ), f"{schema_id}: run STREAMER_WRITE_SCHEMAS=1 pytest tests/test_schemas.py"


def test_every_published_document_has_exactly_one_schema() -> None:
    lanes = sorted(kind.schema.id for kind in api.default_registry())
    assert api.schema_ids() == tuple(sorted([*GENERIC, *LINES, *lanes]))
    assert sorted(path.stem for path in SCHEMAS.glob("*.json")) == list(api.schema_ids())


@pytest.mark.parametrize("schema_id", sorted(path.stem for path in SCHEMAS.glob("*.json")))
def test_schema_files_are_draft_2020_12_with_their_id(schema_id: str) -> None:
    schema = json.loads((SCHEMAS / f"{schema_id}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == schema_id
    assert schema["additionalProperties"] is False
    if schema_id in LINES:
        assert schema["title"] == schema_id.replace(".", "_") + "_v1"
        return
    identity = schema["properties"]["schema"]["const"]
    assert identity["id"] == schema_id
    assert schema["title"] == identity["name"]
    assert schema["additionalProperties"] is False


# -- the lane payload schemas agree with the lane parsers -----------------------------

KIND_OF = {kind.name: kind for kind in api.default_registry()}
RECORDS: dict[str, dict[str, Any]] = {
    "dnd/spell-casts": {
        "spell_cast_id": "s1",
        "spell": "Fireball",
        "caster": None,
        "source_refs": [ref("u1", "u2")],
    },
    "dnd/npcs": {"npc_id": "n1", "name": "Brenna", "source_refs": [ref("u1")]},
    "dnd/npc-interactions": {"interaction_id": "i1", "npc": "Brenna", "source_refs": [ref("u1")]},
    "dnd/combat-turns": {
        "turn_id": "t1",
        "combatant": "Grog",
        "round": 2,
        "source_refs": [ref("u1")],
    },
    "dnd/item-events": {
        "item_event_id": "e1",
        "item": "Longsword",
        "event": "acquired",
        "holder": "Vax",
        "source_refs": [ref("u1")],
    },
    "dnd/scene-descriptions": {"scene_id": "c1", "location": "Tavern", "source_ref": ref("u1")},
    "dnd/party-roster": {"player": "Laura", "character": "Vex"},
}


def mutations(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each member emptied, nulled, retyped, removed; an extra member; broken references."""
    out: list[tuple[str, dict[str, Any]]] = [("as is", record)]
    for name, value in record.items():
        for label, replacement in (
            ("empty", ""),
            ("null", None),
            ("number", 0),
            ("round 0", 0),
            ("list", []),
        ):
            changed = dict(record)
            changed[name] = replacement
            out.append((f"{name}: {label}", changed))
        removed = {key: item for key, item in record.items() if key != name}
        out.append((f"{name}: removed", removed))
        if name in {"source_refs", "source_ref"}:
            broken = copy.deepcopy(value)
            target = broken[0] if isinstance(broken, list) else broken
            target["end_unit_id"] = ""
            out.append((f"{name}: empty unit ID", {**record, name: broken}))
            target.pop("end_unit_id")
            out.append((f"{name}: half a reference", {**record, name: broken}))
    out.append(("extra member", {**record, "notes": "x"}))
    if "event" in record:
        out.append(("event: unknown", {**record, "event": "stolen"}))
    if "round" in record:
        out.append(("round: null", {**record, "round": None}))
        out.append(("round: boolean", {**record, "round": True}))
    return out


@pytest.mark.parametrize("kind_name", sorted(RECORDS))
def test_lane_payload_schema_accepts_exactly_what_the_lane_parser_accepts(kind_name: str) -> None:
    kind = KIND_OF[kind_name]
    lane_id = kind.default_lane
    digest = "sha256:" + "0" * 64
    verdicts = []
    for label, record in mutations(RECORDS[kind_name]):
        payload = {
            "lane_id": lane_id,
            "artifact_kind": kind.name,
            "schema": kind.schema.to_json(),
            "source": {"document_id": "doc-1", "semantic_digest": digest},
            "records": [record],
        }
        try:
            parse_lane_output(payload, lane_id, kind, "test")
            parsed = True
        except LaneOutputError:
            parsed = False
        verdicts.append((label, parsed, schema_errors(payload, kind.schema.id) == []))
    assert [v for v in verdicts if v[1] != v[2]] == []
    assert ("as is", True, True) in verdicts
    assert sum(1 for v in verdicts if not v[1]) >= len(RECORDS[kind_name]) * 4


# -- real output validates -------------------------------------------------------------


def test_small_bundles_match_their_schemas(tmp_path: Path) -> None:
    case = write_case(
        tmp_path / "case", units(["u1", "u2", "u3"]), {"spells": [spell("s1", ref("u2"))]}
    )
    receipt(run_bundle(case, tmp_path / "with"))
    assert_bundle_matches_schemas(tmp_path / "with")
    empty = write_case(tmp_path / "empty", [], {"spells": []})
    receipt(run_bundle(empty, tmp_path / "empty-bundle"))
    assert_bundle_matches_schemas(tmp_path / "empty-bundle")


def test_demo_bundle_and_fixtures_match_their_schemas(tmp_path: Path) -> None:
    receipt(run_bundle(demo_case(), tmp_path / "bundle"))
    assert_bundle_matches_schemas(tmp_path / "bundle")
    for path in sorted((DEMO / "lanes").glob("*.json")):
        document = orjson.loads(path.read_bytes())
        assert schema_errors(document, document["schema"]["id"]) == [], path.name


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("episode", CRD3_EPISODES, ids=lambda path: path.stem)
def test_crd3_bundles_match_their_schemas(tmp_path: Path, episode: Path) -> None:
    case = crd3_case(tmp_path / "case", episode)
    out = tmp_path / "bundle"
    document = receipt(run_bundle(case, out))
    assert document["normalized_lanes"] == 1
    assert_bundle_matches_schemas(out)
    evidence = orjson.loads((out / "evidence-context.json").read_bytes())
    assert evidence["contexts"]
    assert evidence["lanes"] == ["scene-descriptions"]


def test_schema_rejects_transcript_text_in_a_chunk_map() -> None:
    chunk_map: dict[str, Any] = {
        "artifact_kind": "source/chunk-map",
        "schema": {
            "id": "notarius.source.chunk_map",
            "name": "notarius_source_chunk_map_v1",
            "version": "v1",
        },
        "source": {"document_id": "d", "semantic_digest": "sha256:" + "a" * 64},
        "chunking": {"max_units": 2, "overlap_units": 0},
        "chunks": [
            {"chunk_id": "chunk-000001", "start_unit_id": "a", "end_unit_id": "b", "unit_count": 2}
        ],
    }
    assert schema_errors(chunk_map, "notarius.source.chunk_map") == []
    chunk_map["chunks"][0]["text"] = "Hello everyone."
    assert schema_errors(chunk_map, "notarius.source.chunk_map") == [
        "$.chunks[0]: additionalProperties"
    ]


# -- streamer schema -------------------------------------------------------------------


def test_schema_command_prints_the_shipped_file() -> None:
    run = invoke(["schema", "notarius.source.evidence_context"])
    assert run.status == 0, run.stderr
    assert run.stdout == (SCHEMAS / "notarius.source.evidence_context.json").read_bytes()
    assert orjson.loads(run.stdout)["$id"] == "notarius.source.evidence_context"


def test_schema_list_names_every_schema() -> None:
    run = invoke(["schema", "--list"])
    assert run.status == 0, run.stderr
    assert run.stdout.decode().splitlines() == list(api.schema_ids())


def test_unknown_schema_is_a_usage_error_with_a_hint() -> None:
    run = invoke(["schema", "notarius.dnd.wizards"])
    assert run.status == 2
    assert run.stdout == b""
    assert run.stderr.splitlines() == [
        'streamer: error: unknown schema ID or name "notarius.dnd.wizards" '
        "(hint: 'streamer schema --list' names every schema)"
    ]


@pytest.mark.parametrize("args", [[], ["notarius.output.index", "--list"]])
def test_schema_needs_exactly_one_of_an_id_or_list(args: list[str]) -> None:
    run = invoke(["schema", *args])
    assert run.status == 2
    assert "give either SCHEMA or --list" in run.stderr


def test_schema_by_its_name_is_the_schema_by_its_id() -> None:
    by_name = invoke(["schema", "notarius_dnd_spell_casts_v1"])
    by_id = invoke(["schema", "notarius.dnd.spell_casts"])
    assert (by_name.status, by_name.stderr) == (0, "")
    assert by_name.stdout == by_id.stdout
    assert orjson.loads(by_name.stdout)["$id"] == "notarius.dnd.spell_casts"

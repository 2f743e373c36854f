"""A kind registered at run time by a library, without an entry point (``docs/kinds.md``;
an installed plugin kind runs through every command in ``tests/test_plugin_package.py``):
it goes through configuration, the bundle and its evidence context, and ``validate``,
``report`` and ``schema`` take the same registry; its parser, errors, schema and
model-facing record come from its one ``Struct``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec
import orjson
import pytest
import yaml
from jsonschema import Draft202012Validator

from streamer import api
from streamer.framework.kinds.lane_schema import lane_payload_schema
from streamer.framework.kinds.records import NonEmpty, RecordError, SourceReferences
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from tests.support import digest_of, jsonl_bytes, ref, units


class Oath(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The one declaration of the test kind's record."""

    oath_id: NonEmpty
    sworn_by: NonEmpty | None
    binding: Literal["light", "heavy"]
    source_refs: SourceReferences


OATHS: ArtifactKind[Oath] = ArtifactKind(
    name="test/oaths",
    default_lane="oaths",
    question="Which oaths are sworn, and by whom?",
    record=Oath,
    id_member="oath_id",
    evidence_member="source_refs",
)


def registry() -> ArtifactKindRegistry:
    registry = api.default_registry()
    registry.register(OATHS)
    return registry


IDS = ["a", "b", "c", "d", "e", "f"]
RECORD = {"oath_id": "o1", "sworn_by": None, "binding": "heavy", "source_refs": [ref("c")]}


def test_the_new_kind_runs_through_configuration_bundle_and_evidence(tmp_path: Path) -> None:
    doc_units = units(IDS)
    source = tmp_path / "session.jsonl"
    source.write_bytes(jsonl_bytes("doc", doc_units))
    lanes = tmp_path / "lanes"
    lanes.mkdir()
    payload = {
        "lane_id": "oaths",
        "artifact_kind": "test/oaths",
        "schema": {"id": "notarius.test.oaths", "name": "notarius_test_oaths_v1", "version": "v1"},
        "source": {"document_id": "doc", "semantic_digest": digest_of(doc_units)},
        "records": [RECORD],
    }
    (lanes / "oaths.json").write_bytes(orjson.dumps(payload))
    config = tmp_path / "streamer.yaml"
    evidence = {"enabled": True, "window_units": 1, "lanes": ["oaths"]}
    config.write_text(
        yaml.safe_dump(
            {
                "pipeline": {"lanes": [{"id": "oaths", "artifact_kind": "test/oaths"}]},
                "output": {"module": "json", "options": {"evidence_context": evidence}},
            }
        ),
        encoding="utf-8",
    )
    result = api.bundle(api.load_config(config, registry()), source, lanes, tmp_path / "out")
    assert result.receipt()["normalized_lanes"] == 1

    published = orjson.loads((tmp_path / "out" / "lanes" / "oaths.json").read_bytes())
    assert published == payload
    Draft202012Validator(lane_payload_schema(OATHS)).validate(published)
    context = orjson.loads((tmp_path / "out" / "evidence-context.json").read_bytes())
    (only,) = context["contexts"]
    assert [u["unit_id"] for u in only["units"]] == ["b", "c", "d"]
    assert only["references"] == [{"source_ref": ref("c"), "lane_ids": ["oaths"]}]

    # validate and report use the registry the bundle was made with: the kind's lane
    # payload schema is generated from its record (no schema file is shipped for it).
    assert "notarius.test.oaths" in api.schema_ids(registry())
    assert "notarius.test.oaths" not in api.schema_ids()
    assert orjson.loads(api.schema("notarius.test.oaths", registry())) == lane_payload_schema(OATHS)
    checked = api.validate_bundle(tmp_path / "out", registry())
    assert (checked.valid, checked.problems) == (True, [])
    unknown = api.validate_bundle(tmp_path / "out")
    assert unknown.problems == ['"index.json": $.lanes[0].schema.id names no schema streamer knows']
    summary = api.report(tmp_path / "out", output=tmp_path / "report.html", registry=registry())
    assert summary.records == 1


def test_the_declaration_gives_parser_errors_schema_and_model_record() -> None:
    assert OATHS.schema.to_json() == {
        "id": "notarius.test.oaths",
        "name": "notarius_test_oaths_v1",
        "version": "v1",
    }
    assert OATHS.record_to_json(OATHS.parse_record(RECORD, "$.records[0]")) == RECORD
    bad = {**RECORD, "binding": "SECRET-VALUE"}
    with pytest.raises(RecordError) as caught:
        OATHS.parse_record(bad, "$.records[3]")
    assert caught.value.message == "$.records[3].binding must be one of: heavy, light"
    assert (caught.value.path, caught.value.rule) == (
        "$.records[3].binding",
        "must be one of: heavy, light",
    )

    assert OATHS.record_schema() == {
        "type": "object",
        "required": ["oath_id", "sworn_by", "binding", "source_refs"],
        "additionalProperties": False,
        "properties": {
            "oath_id": {"type": "string", "minLength": 1},
            "sworn_by": {"type": ["string", "null"], "minLength": 1},
            "binding": {"enum": ["heavy", "light"]},
            "source_refs": {
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/source_reference"},
            },
        },
    }
    # The model-facing record: the same, less the application-owned ID member.
    model = OATHS.model_record_schema()
    assert model["required"] == ["sworn_by", "binding", "source_refs"]
    assert list(model["$defs"]) == ["source_reference"]
    candidate = {key: value for key, value in RECORD.items() if key != "oath_id"}
    parsed = OATHS.parse_model_record(candidate, "$.record")
    assert OATHS.record_to_json(parsed) == candidate
    with pytest.raises(RecordError, match=r'^\$\.record: unknown member "oath_id"$'):
        OATHS.parse_model_record(RECORD, "$.record")

"""One test per acceptance criterion of ``spec/published-evidence-context.md``."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from streamer import api
from streamer.domain.dnd import KINDS
from streamer.framework.errors.types import SourceError
from streamer.framework.evidence.projector import project_evidence
from streamer.framework.evidence.request import build_evidence_request
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.kinds.records import NonEmpty, SourceReferences
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from streamer.framework.source.reader import SourceDocumentReader
from streamer.framework.source.reference import SourceReference
from tests.support import (
    REPO,
    config_dict,
    invoke,
    jsonl_bytes,
    npc,
    ref,
    scene,
    spell,
    turn,
    units,
    write_case,
)

# Non-monotonic, opaque IDs: position order is the only order.
IDS = ["s10", "s2", "s7", "s1", "s9", "s3", "s8", "s4", "s6", "s5", "s11", "s12"]
UNITS = units(IDS)


def published(unit_id: str) -> dict[str, Any]:
    i = IDS.index(unit_id)
    return {
        "unit_id": unit_id,
        "kind": "utterance",
        "text": f"text of {unit_id}",
        "source_ref": {"start_unit_id": unit_id, "end_unit_id": unit_id},
        "metadata": {"speaker": "GM", "start_ms": i * 10, "end_ms": i * 10 + 5},
    }


def document(case: Any, window: int, lanes: list[str], contexts: list[Any]) -> dict[str, Any]:
    return {
        "artifact_kind": "source/evidence-context",
        "schema": {
            "id": "notarius.source.evidence_context",
            "name": "notarius_source_evidence_context_v1",
            "version": "v1",
        },
        "source": {"document_id": case.document_id, "semantic_digest": case.digest},
        "window_units": window,
        "lanes": lanes,
        "contexts": contexts,
    }


def context(start: str, end: str, refs: list[tuple[str, str, list[str]]]) -> dict[str, Any]:
    first, last = IDS.index(start), IDS.index(end)
    return {
        "start_unit_id": start,
        "end_unit_id": end,
        "references": [{"source_ref": ref(a, b), "lane_ids": lane_ids} for a, b, lane_ids in refs],
        "units": [published(unit_id) for unit_id in IDS[first : last + 1]],
    }


def evidence_of(case: Any, **options: Any) -> bytes:
    out = io.BytesIO()
    api.evidence(api.load_config(case.config), case.source, case.lanes_dir, output=out, **options)
    return out.getvalue()


def test_disabled_by_default_and_the_evidence_command_refuses(tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, {"spells": [spell("c1", ref("s2"))]})
    case.config.write_bytes(orjson.dumps(config_dict(["spells"], None)))
    assert api.load_config(case.config).evidence_enabled is False
    target = tmp_path / "evidence.json"
    run = invoke(case.args("--output", str(target)))
    assert run.status == 2
    assert run.stderr.startswith(
        "streamer: error: evidence publication is not enabled in the configuration"
    )
    assert run.stdout == b""
    assert not target.exists()


@pytest.mark.parametrize(
    ("evidence", "message"),
    [
        ({"enabled": True}, "$.output.options.evidence_context.lanes is required"),
        (
            {"enabled": True, "lanes": []},
            "$.output.options.evidence_context.lanes must be a non-empty list",
        ),
        (
            {"enabled": True, "lanes": None},
            "$.output.options.evidence_context.lanes must be a non-empty list",
        ),
    ],
)
def test_enabling_requires_an_explicit_non_empty_allowlist(
    tmp_path: Path, evidence: dict[str, Any], message: str
) -> None:
    case = write_case(tmp_path, UNITS, {"spells": [spell("c1", ref("s2"))]})
    config = config_dict(["spells"], None)
    config["output"] = {"module": "json", "options": {"evidence_context": evidence}}
    case.config.write_bytes(orjson.dumps(config))
    run = invoke(case.args())
    assert (run.status, run.stdout) == (2, b"")
    assert run.stderr.startswith(f"streamer: error: {message}")


def test_references_from_all_selected_lanes_make_one_deduplicated_document(tmp_path: Path) -> None:
    lanes = {
        "spells": [spell("c1", ref("s2", "s7")), spell("c2", ref("s6"))],
        "npcs": [npc("n1", ref("s2", "s7"), ref("s11"))],
        "combat-turns": [turn("t1", ref("s6"))],
    }
    case = write_case(tmp_path, UNITS, lanes, window=0)
    expected = document(
        case,
        0,
        ["combat-turns", "npcs", "spells"],
        [
            context("s2", "s7", [("s2", "s7", ["npcs", "spells"])]),
            context("s6", "s6", [("s6", "s6", ["combat-turns", "spells"])]),
            context("s11", "s11", [("s11", "s11", ["npcs"])]),
        ],
    )
    assert evidence_of(case) == orjson.dumps(expected) + b"\n"


def test_non_monotonic_ids_expand_and_order_by_document_position(tmp_path: Path) -> None:
    # s9..s3 is a forward range by position (4..5) although "s9" > "s3" as text and number.
    case = write_case(tmp_path, UNITS, {"spells": [spell("c1", ref("s9", "s3"))]}, window=2)
    expected = document(case, 2, ["spells"], [context("s7", "s4", [("s9", "s3", ["spells"])])])
    assert evidence_of(case) == orjson.dumps(expected) + b"\n"


def test_windows_clip_at_the_document_ends(tmp_path: Path) -> None:
    lanes = {"spells": [spell("c1", ref("s10")), spell("c2", ref("s12"))]}
    case = write_case(tmp_path, UNITS, lanes, window=1)
    contexts = orjson.loads(evidence_of(case))["contexts"]
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in contexts] == [
        ("s10", "s2"),
        ("s11", "s12"),
    ]


def test_overlapping_windows_share_one_ordered_copy_of_each_unit(tmp_path: Path) -> None:
    lanes = {
        "spells": [spell("c1", ref("s7")), spell("c2", ref("s3"))],  # windows 0..4 and 3..7
        "npcs": [npc("n1", ref("s8", "s4"))],  # window 4..9: contiguous with the others
    }
    case = write_case(tmp_path, UNITS, lanes, window=2)
    expected = document(
        case,
        2,
        ["npcs", "spells"],
        [
            context(
                "s10",
                "s5",
                [("s7", "s7", ["spells"]), ("s3", "s3", ["spells"]), ("s8", "s4", ["npcs"])],
            )
        ],
    )
    output = evidence_of(case)
    assert output == orjson.dumps(expected) + b"\n"
    unit_ids = [u["unit_id"] for c in orjson.loads(output)["contexts"] for u in c["units"]]
    assert unit_ids == IDS[:10]


def test_direct_references_remain_distinguishable_from_added_context(tmp_path: Path) -> None:
    case = write_case(tmp_path, UNITS, {"spells": [spell("c1", ref("s9", "s3"))]}, window=3)
    (only,) = orjson.loads(evidence_of(case))["contexts"]
    assert only["references"] == [{"source_ref": ref("s9", "s3"), "lane_ids": ["spells"]}]
    assert [u["unit_id"] for u in only["units"]] == ["s2", "s7", "s1", "s9", "s3", "s8", "s4", "s6"]
    cited = {"s9", "s3"}
    context_only = [u["unit_id"] for u in only["units"] if u["unit_id"] not in cited]
    assert context_only == ["s2", "s7", "s1", "s8", "s4", "s6"]


def test_scene_descriptions_contribute_only_when_allowlisted(tmp_path: Path) -> None:
    lanes = {
        "spells": [spell("c1", ref("s6"))],
        "scene-descriptions": [scene("sc1", ref("s10", "s12"))],
    }
    without = write_case(tmp_path / "a", UNITS, lanes, allowlist=["spells"], window=0)
    assert orjson.loads(evidence_of(without))["contexts"] == [
        context("s6", "s6", [("s6", "s6", ["spells"])])
    ]
    with_scenes = write_case(
        tmp_path / "b", UNITS, lanes, allowlist=["spells", "scene-descriptions"], window=0
    )
    assert orjson.loads(evidence_of(with_scenes))["contexts"] == [
        context(
            "s10",
            "s12",
            [("s10", "s12", ["scene-descriptions"]), ("s6", "s6", ["spells"])],
        )
    ]


@pytest.mark.parametrize(
    ("allowlist", "message"),
    [
        (
            ["spells", "ghosts"],
            '$.output.options.evidence_context.lanes[1]: "ghosts" is not a configured lane',
        ),
        (
            ["spells", " spells"],
            '$.output.options.evidence_context.lanes[1]: duplicate lane ID "spells"',
        ),
        (
            ["party-roster"],
            'lane "party-roster" has artifact kind dnd/party-roster, which cannot expose source evidence',
        ),
    ],
)
def test_invalid_selected_lanes_and_unsupported_kinds_fail_before_execution(
    tmp_path: Path, allowlist: list[str], message: str
) -> None:
    case = write_case(tmp_path, UNITS, {"spells": [spell("c1", ref("s2"))]})
    case.config.write_bytes(orjson.dumps(config_dict(["spells", "party-roster"], allowlist)))
    case.source.unlink()  # nothing is read: the configuration fails first
    run = invoke(case.args())
    assert (run.status, run.stdout) == (2, b"")
    assert message in run.stderr
    assert run.stderr.count("\n") == 1


def test_invalid_accepted_references_fail_output_projection(tmp_path: Path) -> None:
    case = write_case(
        tmp_path, UNITS, {"spells": [spell("c1", ref("s2")), spell("c2", ref("s3", "s9"))]}
    )
    target = tmp_path / "evidence.json"
    run = invoke(case.args("--output", str(target)))
    assert run.status == 3
    assert run.stderr == (
        "streamer: error: lane spells: $.records[1] reference 0: reversed source reference: "
        '"s3" comes after "s9" in the source document\n'
    )
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lanes", "source.jsonl", "streamer.yaml"]


def test_empty_selected_lane_results_produce_a_valid_empty_artifact(tmp_path: Path) -> None:
    # One allowlisted lane with no records, one with no output file at all.
    case = write_case(
        tmp_path, UNITS, {"spells": []}, configured=["spells", "npcs"], allowlist=["spells", "npcs"]
    )
    run = invoke(case.args())
    assert run.status == 0
    assert run.stderr == (
        "streamer: warning: lane npcs has no normalized output (npcs.json); it contributes nothing\n"
    )
    assert run.stdout == orjson.dumps(document(case, 3, ["npcs", "spells"], [])) + b"\n"


def test_lane_schemas_counts_and_reference_semantics_do_not_change(tmp_path: Path) -> None:
    lanes = {"spells": [spell("c1", ref("s2", "s7"))], "npcs": [npc("n1", ref("s11"))]}
    case = write_case(tmp_path, UNITS, lanes)
    before = {p.name: p.read_bytes() for p in case.lanes_dir.iterdir()}
    evidence_of(case)
    assert {p.name: p.read_bytes() for p in case.lanes_dir.iterdir()} == before
    identities = {
        kind.name: (kind.schema.id, kind.schema.name, kind.schema.version) for kind in KINDS
    }
    assert identities == {
        "dnd/spell-casts": ("notarius.dnd.spell_casts", "notarius_dnd_spell_casts_v1", "v1"),
        "dnd/npcs": ("notarius.dnd.npcs", "notarius_dnd_npcs_v1", "v1"),
        "dnd/places": ("notarius.dnd.places", "notarius_dnd_places_v1", "v1"),
        "dnd/npc-interactions": (
            "notarius.dnd.npc_interactions",
            "notarius_dnd_npc_interactions_v1",
            "v1",
        ),
        "dnd/combat-turns": ("notarius.dnd.combat_turns", "notarius_dnd_combat_turns_v1", "v1"),
        "dnd/item-events": ("notarius.dnd.item_events", "notarius_dnd_item_events_v1", "v1"),
        "dnd/scene-descriptions": (
            "notarius.dnd.scene_descriptions",
            "notarius_dnd_scene_descriptions_v1",
            "v1",
        ),
        "dnd/party-roster": ("notarius.dnd.party_roster", "notarius_dnd_party_roster_v1", "v1"),
    }
    # A lane payload round-trips unchanged through its typed records.
    payload = orjson.loads(before["spells.json"])
    kind = next(kind for kind in KINDS if kind.name == "dnd/spell-casts")
    assert parse_lane_output(payload, "spells", kind, "lane spells").to_json() == payload


def test_framework_and_output_do_not_depend_on_dnd_or_parse_json_heuristically() -> None:
    checked = subprocess.run(
        [
            str(Path(sys.executable).parent / "lint-imports"),
            "--config",
            str(REPO / "pyproject.toml"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout
    assert "Generic framework and output never import D&D code KEPT" in checked.stdout

    # A non-D&D kind whose records cite evidence in a member named "cites": the framework
    # finds it through the kind's typed projection, not by looking for source_ref(s).
    registry = ArtifactKindRegistry()
    registry.register(QUOTES)
    registry.register(SILENT)
    assert not registry.get("test/silent", where="-").exposes_evidence
    source = jsonl_bytes("doc", UNITS)
    reader = SourceDocumentReader(io.BytesIO(source))
    digest = {
        "document_id": "doc",
        "semantic_digest": orjson.loads(source.split(b"\n")[0])["semantic_digest"],
    }
    payload = {
        "lane_id": "quotes",
        "artifact_kind": "test/quotes",
        "schema": QUOTES.schema.to_json(),
        "source": digest,
        "records": [{"quote_id": "q1", "cites": ref("s1")}],
    }
    lane = parse_lane_output(payload, "quotes", QUOTES, "lane quotes")
    request = build_evidence_request(["quotes"], 0, [lane])
    projection = project_evidence(request, reader.batches(), lambda: reader.identity)
    try:
        assert [(c.start_unit_id, c.end_unit_id) for c in projection.contexts] == [("s1", "s1")]
    finally:
        projection.close()

    # A kind whose records carry a member named source_refs, but no projection, exposes
    # nothing: its lane is refused by the evidence request, whatever its records hold.
    silent = parse_lane_output(
        {
            "lane_id": "silent",
            "artifact_kind": "test/silent",
            "schema": SILENT.schema.to_json(),
            "source": digest,
            "records": [{"silent_id": "x1", "source_refs": [ref("s1", "s9")]}],
        },
        "silent",
        SILENT,
        "lane silent",
    )
    assert silent.records[0].source_refs == [SourceReference("s1", "s9")]
    with pytest.raises(ValueError, match="artifact kind test/silent cannot expose evidence"):
        build_evidence_request(["quotes", "silent"], 0, [lane, silent])


class Quote(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    quote_id: NonEmpty
    cites: SourceReference


class Silent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    silent_id: NonEmpty
    source_refs: SourceReferences


QUOTES: ArtifactKind[Quote] = ArtifactKind(
    name="test/quotes",
    default_lane="quotes",
    question="Which lines are quoted?",
    record=Quote,
    id_member="quote_id",
    evidence_member="cites",
)
SILENT: ArtifactKind[Silent] = ArtifactKind(
    name="test/silent",
    default_lane="silent",
    question="-",
    record=Silent,
    id_member="silent_id",
)


def test_published_ids_that_share_a_hash_are_compared_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Duplicates among published units are found by hash, then confirmed on the IDs."""
    from streamer.framework.evidence import spool

    # Every ID collides: a module global named ``hash`` shadows the builtin in that module.
    monkeypatch.setattr(spool, "hash", lambda unit_id: 7, raising=False)
    case = write_case(
        tmp_path / "distinct", UNITS, {"spells": [spell("c1", ref("s2", "s9"))]}, window=1
    )
    (only,) = orjson.loads(evidence_of(case))["contexts"]
    assert [u["unit_id"] for u in only["units"]] == ["s10", "s2", "s7", "s1", "s9", "s3"]

    twice = [*UNITS[:5], {**UNITS[5], "unit_id": "s7"}, *UNITS[6:]]
    case = write_case(
        tmp_path / "twice", twice, {"spells": [spell("c1", ref("s2", "s9"))]}, window=1
    )
    with pytest.raises(SourceError, match='unit ID "s7" appears twice among the published units'):
        evidence_of(case)

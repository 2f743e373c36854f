"""``streamer validate``: every produced bundle is valid; each planted defect is reported,
content-safely, with exit status 3."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from tests.bundle_support import (
    CRD3_EPISODES,
    crd3_case,
    demo_case,
    receipt,
    run_bundle,
    write_config,
)
from tests.support import Case, config_dict, npc, ref, run_cli, spell, units, write_case

# Sixty units with opaque IDs, chunks of 10 overlapping by 2 (the chunk map fixes the
# positions 0, 9, 8, 17, 16, ...). With window 2 the evidence has three contexts:
# positions 3..10 (u5, u8), 28..36 (u30..u31, u34) and 48..52 (u50, an NPC).
IDS = [f"k{(i * 37) % 100:02d}" for i in range(60)]


def uid(position: int) -> str:
    return IDS[position]


def evidence_case(root: Path) -> Case:
    config = config_dict(["spells", "npcs"], ["spells", "npcs"], 2)
    config["pipeline"]["chunking"] = {"max_units": 10, "overlap_units": 2}
    lanes = {
        "spells": [
            spell("s1", ref(uid(5))),
            spell("s2", ref(uid(8)), ref(uid(30), uid(31))),
            spell("s3", ref(uid(34))),
        ],
        "npcs": [npc("n1", ref(uid(50)))],
    }
    return write_case(root, units(IDS), lanes, config=config)


def validate(folder: Path) -> tuple[int, list[str], bytes]:
    run = run_cli(["validate", str(folder)])
    return run.status, run.stderr.splitlines(), run.stdout


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    out = tmp_path / "bundle"
    receipt(run_bundle(evidence_case(tmp_path / "case"), out))
    return out


def edit(path: Path, change: Callable[[Any], None]) -> None:
    document = orjson.loads(path.read_bytes())
    change(document)
    path.write_bytes(orjson.dumps(document) + b"\n")


def test_the_evidence_case_has_three_contexts(bundle: Path) -> None:
    evidence = orjson.loads((bundle / "evidence-context.json").read_bytes())
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in evidence["contexts"]] == [
        (uid(3), uid(10)),
        (uid(28), uid(36)),
        (uid(48), uid(52)),
    ]


# -- valid bundles ---------------------------------------------------------------------


def test_valid_bundle_prints_a_one_line_summary(bundle: Path) -> None:
    status, errors, stdout = validate(bundle)
    assert (status, errors) == (0, [])
    assert orjson.loads(stdout) == {"status": "valid", "document_id": "doc-1", "files": 5}


def test_demo_bundle_is_valid(tmp_path: Path) -> None:
    receipt(run_bundle(demo_case(), tmp_path / "bundle"))
    assert validate(tmp_path / "bundle")[:2] == (0, [])


@pytest.mark.parametrize(
    "variant", ["disabled", "filtered", "missing lane", "no citations", "window 0", "empty"]
)
def test_produced_bundles_are_valid(tmp_path: Path, variant: str) -> None:
    case = evidence_case(tmp_path / "case")
    extra: list[str] = []
    if variant == "disabled":
        case.config = write_config(tmp_path / "c.yaml", config_dict(["spells", "npcs"], None))
    elif variant == "filtered":
        extra = ["--lane", "npcs"]
    elif variant == "missing lane":
        (case.lanes_dir / "spells.json").unlink()
    elif variant == "no citations":
        case = write_case(tmp_path / "none", units(IDS), {"spells": [], "npcs": []})
    elif variant == "window 0":
        case.config = write_config(
            tmp_path / "c.yaml", config_dict(["spells", "npcs"], ["npcs", "spells"], 0)
        )
    elif variant == "empty":
        case = write_case(tmp_path / "empty", [], {"spells": []})
    out = tmp_path / "bundle"
    receipt(run_bundle(case, out, *extra))
    assert validate(out)[:2] == (0, [])


def test_evidence_at_both_ends_of_the_document_is_valid(tmp_path: Path) -> None:
    lanes = {"spells": [spell("s1", ref(uid(0))), spell("s2", ref(uid(59)))]}
    case = write_case(tmp_path / "case", units(IDS), lanes, window=5)
    receipt(run_bundle(case, tmp_path / "bundle"))
    assert validate(tmp_path / "bundle")[:2] == (0, [])


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("episode", CRD3_EPISODES, ids=lambda path: path.stem)
def test_crd3_bundles_are_valid(tmp_path: Path, episode: Path) -> None:
    case = crd3_case(tmp_path / "case", episode)
    out = tmp_path / "bundle"
    api.bundle(api.load_config(case.config), case.source, case.lanes_dir, out)
    report = api.validate_bundle(out)
    assert report.problems == []
    assert report.document_id == f"crd3-{episode.stem.lower()}"


# -- planted defects -------------------------------------------------------------------

ERROR = "streamer: error: "


def test_missing_file(bundle: Path) -> None:
    (bundle / "lanes" / "npcs.json").unlink()
    assert validate(bundle)[:2] == (
        3,
        [ERROR + "\"lanes/npcs.json\": missing: index.json describes it at $.lanes[0]"],
    )


def test_missing_index(bundle: Path) -> None:
    (bundle / "index.json").unlink()
    assert validate(bundle)[:2] == (
        3,
        [ERROR + "\"index.json\": missing: a bundle is described by its index"],
    )


def test_undeclared_file(bundle: Path) -> None:
    (bundle / "lanes" / "party-roster.json").write_bytes(b"{}\n")
    (bundle / ".hidden").write_bytes(b"")
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + "\".hidden\": present but not described in index.json",
            ERROR + "\"lanes/party-roster.json\": present but not described in index.json",
        ],
    )


def test_reference_outside_its_context(bundle: Path) -> None:
    def move(document: Any) -> None:
        # u34's reference moves from the second context into the first.
        document["contexts"][0]["references"].append(document["contexts"][1]["references"].pop())

    edit(bundle / "evidence-context.json", move)
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + f'"evidence-context.json": $.contexts[0].references[2]: unit "{uid(34)}" is '
            "outside the context's bounds",
            ERROR + "\"evidence-context.json\": $.contexts[1] is not the union of its references "
            "expanded by window_units 2",
        ],
    )


def test_duplicated_unit(bundle: Path) -> None:
    def duplicate(document: Any) -> None:
        units = document["contexts"][1]["units"]
        units.insert(4, document["contexts"][0]["units"][2])

    edit(bundle / "evidence-context.json", duplicate)
    status, errors, _ = validate(bundle)
    assert status == 3
    assert errors[0] == (
        ERROR + f'"evidence-context.json": $.contexts[1].units[4]: unit "{uid(5)}" repeats '
        "$.contexts[0].units[2]"
    )


def test_unit_out_of_order(bundle: Path) -> None:
    def swap(document: Any) -> None:
        units = document["contexts"][1]["units"]
        units[4], units[5] = units[5], units[4]  # positions 32 and 33: both fixed by chunks

    edit(bundle / "evidence-context.json", swap)
    # The first fixed unit met places the context; the other one contradicts it.
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + f'"evidence-context.json": $.contexts[1].units[5]: unit "{uid(32)}" is out of '
            "order (the chunk map puts it at source position 32)",
        ],
    )


def test_unit_out_of_order_at_a_context_bound(bundle: Path) -> None:
    def swap(document: Any) -> None:
        units = document["contexts"][2]["units"]
        units[0], units[1] = units[1], units[0]

    edit(bundle / "evidence-context.json", swap)
    status, errors, _ = validate(bundle)
    assert status == 3
    assert (
        ERROR + f'"evidence-context.json": $.contexts[2].start_unit_id "{uid(48)}" is not the '
        "context's first unit: units are out of order or missing"
    ) in errors


def test_reference_reversed_by_reordered_units(bundle: Path) -> None:
    def swap(document: Any) -> None:
        units = document["contexts"][1]["units"]
        units[2], units[3] = units[3], units[2]  # u30 and u31: not fixed by the chunk map

    edit(bundle / "evidence-context.json", swap)
    status, errors, _ = validate(bundle)
    assert status == 3
    assert errors == [
        ERROR + f'"evidence-context.json": $.contexts[1].references[0]: reversed, "{uid(30)}" '
        f'comes after "{uid(31)}"'
    ]


def test_lane_reference_missing_from_the_evidence(bundle: Path) -> None:
    def forget(document: Any) -> None:
        document["contexts"][0]["references"][1]["lane_ids"] = ["npcs"]

    edit(bundle / "evidence-context.json", forget)
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + "\"lanes/spells.json\": $.records[1] reference 0 is not in "
            "evidence-context.json for lane spells",
            ERROR + "\"evidence-context.json\": $.contexts[0].references[1]: lane npcs does not "
            "cite this reference in lanes/npcs.json",
        ],
    )


def test_descriptor_disagreement(bundle: Path) -> None:
    edit(bundle / "index.json", lambda index: index["lanes"][1].update(record_count=7))
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + "\"lanes/spells.json\": $.record_count disagrees with its descriptor "
            "(index.json $.lanes[1].record_count)"
        ],
    )


def test_descriptor_naming_an_unknown_or_foreign_schema(bundle: Path) -> None:
    def rename(index: Any) -> None:
        index["lanes"][0]["schema"]["id"] = "notarius.dnd.wizards"
        index["lanes"][1]["schema"] = index["chunk_map"]["schema"]

    edit(bundle / "index.json", rename)
    assert validate(bundle)[:2] == (
        3,
        [
            ERROR + "\"index.json\": $.lanes[0].schema.id names no schema streamer knows",
            ERROR + "\"lanes/spells.json\": $ has a member its schema does not allow "
            "(notarius.source.chunk_map)",
            ERROR + "\"lanes/spells.json\": $.chunking is required (notarius.source.chunk_map)",
            ERROR + "\"lanes/spells.json\": $.chunks is required (notarius.source.chunk_map)",
            ERROR + "\"lanes/spells.json\": $.artifact_kind breaks the schema rule 'const' "
            "(notarius.source.chunk_map)",
            ERROR + "\"lanes/spells.json\": $.schema breaks the schema rule 'const' "
            "(notarius.source.chunk_map)",
        ],
    )


def test_schema_problems_never_show_values(bundle: Path) -> None:
    def plant(document: Any) -> None:
        document["records"][0]["spell"] = ""
        document["records"][1]["caster"] = ["SECRET SPELL TEXT"]
        document["records"][2]["SECRET MEMBER"] = "SECRET VALUE"
        del document["records"][2]["spell_cast_id"]

    edit(bundle / "lanes" / "spells.json", plant)
    status, errors, _ = validate(bundle)
    assert status == 3
    assert errors == [
        ERROR + "\"lanes/spells.json\": $.records[0].spell breaks the schema rule 'minLength' "
        "(notarius.dnd.spell_casts)",
        ERROR + "\"lanes/spells.json\": $.records[1].caster breaks the schema rule 'type' "
        "(notarius.dnd.spell_casts)",
        ERROR + "\"lanes/spells.json\": $.records[2] has a member its schema does not allow "
        "(notarius.dnd.spell_casts)",
        ERROR + "\"lanes/spells.json\": $.records[2].spell_cast_id is required "
        "(notarius.dnd.spell_casts)",
    ]
    assert "SECRET" not in "\n".join(errors)


def test_not_json(bundle: Path) -> None:
    (bundle / "chunk-map.json").write_bytes(b"{")
    assert validate(bundle)[:2] == (3, [ERROR + "\"chunk-map.json\": not valid JSON"])


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    status, errors, stdout = validate(tmp_path / "nowhere")
    assert (status, errors, stdout) == (
        2,
        [ERROR + "bundle folder \"nowhere\" does not exist"],
        b"",
    )

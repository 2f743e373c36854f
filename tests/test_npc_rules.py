"""``engine: rules`` for ``dnd/npcs``: the glossary's NPCs, named as whole words; no
glossary names (and none mined), no candidates and a receipt saying why."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from streamer import api
from streamer.domain.dnd.npc_rules import NO_NPCS, NpcRules, npc_forms
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

PARTY = {"LAURA": "Vex'ahlia", "SAM": "Scanlan Shorthalt"}
NAMES = {
    "vex'ahlia": "Vex'ahlia",
    "vex": "Vex'ahlia",
    "gilmore": "Gilmore",
    "kima of vord": "Kima",
    "kima": "Kima",
}


def ref(unit_id: str) -> list[dict[str, str]]:
    return [{"start_unit_id": unit_id, "end_unit_id": unit_id}]


UNITS = [
    ShownUnit("u1", "MATT", "Gilmore smiles. \u201cWelcome back, Vex.\u201d"),
    ShownUnit("u2", "LAURA", "Gilmore's shop first! And then Kima of Vord."),
    ShownUnit("u3", "SAM", "I sing to KIMA."),
    ShownUnit("u4", "LAURA", "Kimarra and gilmored are not names."),
    ShownUnit("u5", "TRAVIS", "Gilmore again."),  # not in the party
    ShownUnit("u6", None, "Gilmore, \u00a0Kima\u2019s friend"),
]


def test_the_party_is_not_an_npc() -> None:
    assert npc_forms(RulesContext(PARTY, NAMES)) == {
        "gilmore": "Gilmore",
        "kima of vord": "Kima",
        "kima": "Kima",
    }


def test_npcs_are_named_as_whole_words_case_insensitively() -> None:
    found = NpcRules()(UNITS, RulesContext(PARTY, NAMES))
    assert found == [
        {"name": "Gilmore", "source_refs": ref("u1")},
        {"name": "Gilmore", "source_refs": ref("u2")},
        {"name": "Kima", "source_refs": ref("u2")},
        {"name": "Kima", "source_refs": ref("u3")},
        {"name": "Gilmore", "source_refs": ref("u5")},
        {"name": "Gilmore", "source_refs": ref("u6")},
        {"name": "Kima", "source_refs": ref("u6")},
    ]


def test_without_glossary_names_nothing_and_a_note() -> None:
    # no survey ran: no NPC is mined
    rules = NpcRules()
    context = RulesContext(PARTY, {"vex": "Vex'ahlia"})
    assert rules(UNITS, context) == []
    assert rules.note(context) == NO_NPCS
    assert rules.note(RulesContext(PARTY, NAMES)) is None


def test_extract_and_normalize_from_the_glossary(tmp_path: Path) -> None:
    source = tmp_path / "session.jsonl"
    lines = ["MATT: Gilmore waves.", "LAURA: Hi Gilmore!", "SAM: Kima?", "MATT: Nobody."]
    text = tmp_path / "s.txt"
    text.write_text("\n".join(lines) + "\n")
    api.import_transcript("text", text, output=source)
    config_path = tmp_path / "streamer.yaml"
    config_path.write_text(
        yaml.safe_dump(
            {
                "pipeline": {
                    "lanes": [{"id": "npcs", "artifact_kind": "dnd/npcs"}],
                    "chunking": {"max_units": 2, "overlap_units": 1},
                    "extraction": {"engine": "rules"},
                }
            }
        )
    )
    glossary = tmp_path / "campaign.yaml"
    glossary.write_text(
        yaml.safe_dump(
            {
                "party": [{"player": "LAURA", "character": "Vex'ahlia"}],
                "names": {"Gilmore": [], "Kima": ["Kima of Vord"], "Vex'ahlia": ["Vex"]},
            }
        )
    )
    config = api.load_config(config_path)
    result = api.extract(config, source, tmp_path / "c", glossary=glossary)
    # chunks u1-u2, u2-u3, u3-u4: a unit in an overlap gives a candidate in each chunk
    assert [lane["candidates"] for lane in result.lanes] == [5]
    assert all("note" not in lane for lane in result.lanes)
    api.normalize(config, source, tmp_path / "c", tmp_path / "n", glossary=glossary)
    npcs = json.loads((tmp_path / "n" / "npcs.json").read_text())["records"]
    assert [(r["name"], [x["start_unit_id"] for x in r["source_refs"]]) for r in npcs] == [
        ("Gilmore", ["u000001", "u000002"]),
        ("Kima", ["u000003"]),
    ]
    # without a glossary, the miner finds Gilmore (said twice, once after "Hi"); Kima,
    # said once, is not found
    bare = api.extract(config, source, tmp_path / "d")
    assert [lane.get("note") for lane in bare.lanes] == [None]
    assert [lane["candidates"] for lane in bare.lanes] == [3]

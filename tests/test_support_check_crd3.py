"""The rules engine and the support check agree on the four shared CRD3 episodes
(``../shared/data/crd3``, skipped when absent): every candidate the built-in rules produce
is supported; and a hallucinated value citing a real unit is rejected, for every kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from streamer import api
from tests.bundle_support import CRD3_EPISODES
from tests.normalize_support import candidate, rejections, write_candidates
from tests.support import KIND_OF_LANE, Case
from tests.test_extract_rules import PARTIES

# A value no CRD3 episode says, per textual member (checked against each unit cited).
HALLUCINATED: dict[str, dict[str, Any]] = {
    "spells": {"spell": "Meteor Swarm", "caster": None},
    "npcs": {"name": "Zorblax the Unseen"},
    "places": {"name": "Castle Zorblax"},
    "npc-interactions": {"npc": "Zorblax the Unseen"},
    "combat-turns": {"combatant": "Gandalf", "round": 1},
    "item-events": {"item": "Vorpal Sword", "event": "acquired", "holder": None},
    "scene-descriptions": {"location": "Castle Zorblax"},
}
NPCS = {  # non-player characters these episodes name
    "C1": ["Nostoc", "Allura", "Kima", "Stilben", "Trinket"],
    "C2": ["Gustav", "Toya", "Desmond", "Bertrand", "Clive"],
}
PATHS = {
    "spells": "$.record.spell",
    "npcs": "$.record.name",
    "places": "$.record.name",
    "npc-interactions": "$.record.npc",
    "combat-turns": "$.record.combatant",
    "item-events": "$.record.item",
    "scene-descriptions": "$.record.location",
}


def rules_lanes() -> list[str]:
    """The lanes whose kind has a built-in rules extractor (today's and tomorrow's)."""
    return [
        kind.default_lane
        for kind in api.default_registry()
        if kind.extraction is not None and kind.extraction.rules is not None
    ]


def episode_case(tmp_path: Path, episode: Path) -> tuple[Case, Path]:
    source = tmp_path / f"{episode.stem}.jsonl"
    api.import_transcript("crd3", episode, output=source)
    glossary = tmp_path / "campaign.yaml"
    party = [{"player": p, "character": c} for p, c in PARTIES[episode.stem[:2]].items()]
    names: dict[str, list[str]] = {
        name: [] for name in NPCS[episode.stem[:2]]
    }  # what the NPC rules look for
    glossary.write_text(yaml.safe_dump({"party": party, "names": names}), encoding="utf-8")
    lanes = sorted({*rules_lanes(), *HALLUCINATED})
    config = {
        "pipeline": {
            "lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in lanes],
            "extraction": {"engine": "rules"},
            "normalization": {"glossary": glossary.name},
        }
    }
    path = tmp_path / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    first = orjson.loads(source.read_bytes().split(b"\n", 1)[0])
    return Case(
        tmp_path, path, source, tmp_path / "lanes", first["document_id"], first["semantic_digest"]
    ), glossary


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("episode", CRD3_EPISODES, ids=lambda path: path.stem)
def test_every_rules_candidate_is_supported_and_hallucinations_are_not(
    tmp_path: Path, episode: Path
) -> None:
    case, _ = episode_case(tmp_path, episode)
    config = api.load_config(case.config)
    folder = tmp_path / "candidates"
    api.extract(config, case.source, folder, lanes=rules_lanes())
    made = {
        lane: len((folder / f"{lane}.jsonl").read_bytes().splitlines()) - 1
        for lane in rules_lanes()
    }
    assert made["spells"] > 0
    out = tmp_path / "out"
    result = api.normalize(config, case.source, folder, out, warn=lambda _: None)
    receipts = {lane.lane_id: lane.receipt() for lane in result.lanes}
    for lane in rules_lanes():
        assert receipts[lane]["candidates"] == made[lane]
        assert "unsupported" not in receipts[lane]["rejected"], (lane, receipts[lane])
    assert receipts["spells"]["accepted"] == made["spells"]
    assert sum(made.values()) > made["spells"]  # the NPC rules answered too

    # a hallucinated value citing real units (the first ten utterances of chunk 1), per kind
    units = [orjson.loads(line) for line in case.source.read_bytes().splitlines()[1:11]]
    wrong = tmp_path / "wrong"
    for lane, members in HALLUCINATED.items():
        items = []
        for item in units:
            cited = {"start_unit_id": item["unit_id"], "end_unit_id": item["unit_id"]}
            evidence = (
                {"source_ref": cited} if lane == "scene-descriptions" else {"source_refs": [cited]}
            )
            items.append(candidate("chunk-000001", {**members, **evidence}))
        write_candidates(wrong, lane, case, items)
    out = tmp_path / "out-wrong"
    api.normalize(config, case.source, wrong, out, warn=lambda _: None)
    found: dict[str, set[tuple[str, str]]] = {}
    for line in rejections(out):
        found.setdefault(line["lane_id"], set()).add((line["reason"], line["path"]))
    assert found == {lane: {("unsupported", path)} for lane, path in PATHS.items()}
    assert [len(lines) for lines in [rejections(out)]] == [10 * len(HALLUCINATED)]

"""Precision and recall of the rules engine per lane and per episode, on the labelled set
``tests/labelled/crd3.json`` (unit IDs and expected records, labelled by reading ranges of
two shared CRD3 episodes, 2,086 units; what counts as a cast is stated in the file;
skipped when ``../shared/data/crd3`` is absent).

What is scored is what a game master gets: each episode is imported, extracted with the
rules (chunks of 100 units, 10 shared: the default plan) and normalized (the support
check, then each kind's identity rule), with a glossary giving the party (and its
characters' short names) and the file's NPCs; the published records whose first cited
unit lies in a labelled range are scored. A spell-cast record is right when it names a
labelled cast's spell (caster equal or null) citing one of its units, and no earlier
record took that cast; NPC namings and interactions are scored by (name, unit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamer import api
from tests.support import CRD3, REPO
from tests.test_extract_rules import PARTIES

LABELS = json.loads((REPO / "tests" / "labelled" / "crd3.json").read_text())["episodes"]
# The names a game master's glossary gives the party's characters besides their own
ALIASES = {
    "C1": {
        "Vex'ahlia": ["Vex"],
        "Vax'ildan": ["Vax"],
        "Scanlan Shorthalt": ["Scanlan"],
        "Percival": ["Percy"],
        "Grog Strongjaw": ["Grog"],
        "Tiberius Stormwind": ["Tiberius"],
        "Pike Trickfoot": ["Pike"],
    },
    "C2": {
        "Jester Lavorre": ["Jester"],
        "Caleb Widogast": ["Caleb"],
        "Beauregard": ["Beau"],
        "Mollymauk Tealeaf": ["Molly", "Mollymauk"],
    },
}
LANES = {
    "spells": "dnd/spell-casts",
    "npcs": "dnd/npcs",
    "npc-interactions": "dnd/npc-interactions",
}
# (precision, recall) floors, for both episodes together and for each; the measured
# figures (right / found / labelled) are in docs/extraction.md.
FLOORS = {"spells": (0.90, 0.85), "npcs": (1.0, 1.0), "npc-interactions": (1.0, 0.50)}
EPISODE_FLOORS = {
    ("spells", "C1E002"): (0.90, 0.80),
    ("spells", "C2E010"): (0.90, 0.85),
    ("npcs", "C1E002"): (1.0, 1.0),
    ("npcs", "C2E010"): (1.0, 1.0),
    ("npc-interactions", "C1E002"): (1.0, 0.44),
    ("npc-interactions", "C2E010"): (1.0, 1.0),
}
Counts = tuple[int, int, int]  # right, found, labelled


def published(episode: str, root: Path) -> dict[str, list[dict[str, Any]]]:
    """The records ``streamer`` publishes for the episode, per lane."""
    source = root / f"{episode}.jsonl"
    api.import_transcript("crd3", CRD3 / "episodes" / f"{episode}.json", output=source)
    config_path = root / "streamer.yaml"
    lanes = [{"id": lane, "artifact_kind": kind} for lane, kind in LANES.items()]
    pipeline = {
        "lanes": lanes,
        "chunking": {"max_units": 100, "overlap_units": 10},
        "extraction": {"engine": "rules"},
    }
    config_path.write_text(yaml.safe_dump({"pipeline": pipeline}))
    party = PARTIES[episode[:2]]
    glossary = root / "campaign.yaml"
    names = {**ALIASES[episode[:2]], **LABELS[episode]["npcs"]}
    players = [{"player": player, "character": name} for player, name in party.items()]
    glossary.write_text(yaml.safe_dump({"party": players, "names": names}))
    config = api.load_config(config_path)
    api.extract(config, source, root / "candidates", glossary=glossary)
    api.normalize(config, source, root / "candidates", root / "records", glossary=glossary)
    return {
        lane: json.loads((root / "records" / f"{lane}.json").read_text())["records"]
        for lane in LANES
    }


def lane_scores(episode: str, root: Path) -> dict[str, Counts]:
    """(right, found, labelled) per lane, in the episode's labelled ranges."""
    label = LABELS[episode]
    ranges = [tuple(pair) for pair in label["ranges"]]

    def within(unit: str) -> bool:
        return any(first <= unit <= last for first, last in ranges)

    records = published(episode, root)
    casts = [
        (r["spell"], r["caster"], {ref["start_unit_id"] for ref in r["source_refs"]})
        for r in records["spells"]
        if within(r["source_refs"][0]["start_unit_id"])
    ]
    namings = {
        (r["name"], ref["start_unit_id"])
        for r in records["npcs"]
        for ref in r["source_refs"]
        if within(ref["start_unit_id"])
    }
    talks = {
        (r["npc"], ref["start_unit_id"])
        for r in records["npc-interactions"]
        for ref in r["source_refs"]
        if within(ref["start_unit_id"])
    }
    return {
        "spells": score(casts, label["spell_casts"]),
        "npcs": pairs(namings, label["npc_namings"], "name"),
        "npc-interactions": pairs(talks, label["npc_interactions"], "npc"),
    }


def score(found: list[tuple[str, str | None, set[str]]], expected: list[dict[str, Any]]) -> Counts:
    """Each record takes the first labelled cast it matches that no record took."""
    taken: set[int] = set()
    right = 0
    for spell, caster, cited in found:
        for index, label in enumerate(expected):
            if index in taken or label["spell"] != spell or not cited & set(label["units"]):
                continue
            if caster is not None and caster != label["caster"]:
                continue
            taken.add(index)
            right += 1
            break
    return right, len(found), len(expected)


def pairs(found: set[tuple[str, str]], expected: list[dict[str, Any]], key: str) -> Counts:
    want = {(item[key], unit) for item in expected for unit in item["units"]}
    return len(found & want), len(found), len(want)


def rates(right: int, found: int, expected: int) -> tuple[float, float]:
    return (right / found if found else 1.0, right / expected if expected else 1.0)


@pytest.mark.skipif(not (CRD3 / "episodes").is_dir(), reason="the CRD3 sample is absent")
def test_precision_and_recall_per_lane_and_episode_meet_their_floors(tmp_path: Path) -> None:
    totals = {lane: [0, 0, 0] for lane in FLOORS}
    below = []
    for episode in sorted(LABELS):
        (tmp_path / episode).mkdir()
        for lane, counts in lane_scores(episode, tmp_path / episode).items():
            for index, count in enumerate(counts):
                totals[lane][index] += count
            precision, recall = rates(*counts)
            floor_precision, floor_recall = EPISODE_FLOORS[lane, episode]
            if precision < floor_precision or recall < floor_recall:
                below.append((lane, episode, counts))
    for lane, (right, found, expected) in totals.items():
        precision, recall = rates(right, found, expected)
        floor_precision, floor_recall = FLOORS[lane]
        if precision < floor_precision or recall < floor_recall:
            below.append((lane, "both", (right, found, expected)))
    assert below == []


def test_the_scores_count_as_documented() -> None:
    """A record takes one cast; a wrong spell, a wrong caster or a unit outside the cast's
    are wrong; a null caster is not wrong."""
    expected = [
        {"spell": "Blur", "caster": "Caleb", "units": ["t1", "t2"]},
        {"spell": "Blur", "caster": "Caleb", "units": ["t9"]},
    ]
    found = [
        ("Blur", "Caleb", {"t2"}),
        ("Blur", None, {"t1"}),  # the first cast is taken: no second match
        ("Blur", "Fjord", {"t9"}),
        ("Haste", "Caleb", {"t9"}),
        ("Blur", None, {"t9", "t5"}),
    ]
    assert score(found, expected) == (2, 5, 2)
    assert pairs({("Kima", "t1"), ("Kima", "t3")}, [{"name": "Kima", "units": ["t1"]}], "name") == (
        1,
        2,
        1,
    )


def test_the_labelled_set_is_worth_the_name() -> None:
    """Its size as stated in docs/extraction.md: casts, NPC namings, interactions."""
    casts = sum(len(label["spell_casts"]) for label in LABELS.values())
    namings = sum(len(n["units"]) for label in LABELS.values() for n in label["npc_namings"])
    talks = sum(len(n["units"]) for label in LABELS.values() for n in label["npc_interactions"])
    assert (casts, namings, talks) == (28, 40, 43)


def test_every_labelled_unit_lies_in_its_episode_ranges() -> None:
    outside = []
    for episode, label in LABELS.items():
        units = [
            unit
            for lane in ("spell_casts", "npc_namings", "npc_interactions")
            for item in label[lane]
            for unit in item["units"]
        ]
        for unit in units:
            if not any(first <= unit <= last for first, last in label["ranges"]):
                outside.append((episode, unit))
    assert outside == []

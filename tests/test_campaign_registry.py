"""The campaign registry: identity across sessions (glossary, name rule, short names, the
party never an NPC), its exact shape, its schema, and its bytes whatever the order."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from streamer import api
from streamer.api.registries import campaign_registry
from streamer.output.campaign_registry import (
    REGISTRY_FILE,
    read_registry,
    registry_bytes,
    report_link,
)
from streamer.output.schema_catalog import load_schema
from streamer.validation.review import ACCEPTED, REJECTED, Mark, Review, review_bytes, review_path
from tests.registry_support import DIGEST, write_bundle, write_lines

S1: dict[str, Any] = {
    "npcs": [
        ("npc-a1", "Pumat Sol", [("t00012", "t00012"), ("t00040", "t00044")]),
        ("npc-a2", "Keyleth", [("t00050", "t00050")]),
    ],
    "places": [("place-a1", "The Iron Hearth Tavern", [("t00003", "t00004")])],
    "spells": [
        ("spell-a1", "Cure Wounds", "Keyleth", [("t00100", "t00100")]),
        ("spell-a2", "Fireball", None, [("t00101", "t00101")]),
    ],
    "item-events": [("item-event-a1", "Potion of Healing", [("t00200", "t00200")])],
}
S2: dict[str, Any] = {
    "npcs": [("npc-b1", "pumat  sol", [("t00007", "t00009")])],
    "places": [("place-b1", "iron hearth tavern", [("t00001", "t00001")])],
    "spells": [("spell-b1", "Cure Wounds", "KEYLETH", [("t00009", "t00009")])],
}
GLOSSARY = """\
party:
  - {player: MARISHA, character: Keyleth, sessions: [S2]}
names:
  Keyleth: [Key]
"""


def _campaign(tmp_path: Path, sessions: dict[str, Any]) -> Path:
    for document_id, lanes in sessions.items():
        write_bundle(tmp_path, document_id, lanes)
    write_lines(tmp_path, [(document_id, "ok") for document_id in sessions])
    return tmp_path


def _glossary(tmp_path: Path, text: str = GLOSSARY) -> Path:
    path = tmp_path / "glossary.yaml"
    path.write_text(text)
    return path


def test_an_npc_named_in_two_sessions_is_one_entry_citing_both(tmp_path: Path) -> None:
    root = _campaign(tmp_path / "out", {"S1": S1, "S2": S2})
    result = campaign_registry(root, glossary=_glossary(tmp_path))
    data = orjson.loads((root / REGISTRY_FILE).read_bytes())
    lanes = [("dnd/item-events", "item-events", 1), ("dnd/npcs", "npcs", 2),
             ("dnd/places", "places", 1), ("dnd/spell-casts", "spells", 2)]  # fmt: skip
    assert data["sessions"] == [
        {"session_id": "S1", "position": 1, "bundle": "S1", "report": "S1.html",
         "status": "published", "lanes": [
            {"artifact_kind": kind, "lane_id": lane, "records": n} for kind, lane, n in lanes]},
        {"session_id": "S2", "position": 2, "bundle": "S2", "report": "S2.html",
         "status": "published", "lanes": [
            {"artifact_kind": kind, "lane_id": lane, "records": 1} for kind, lane, _ in lanes[1:]]},
    ]  # fmt: skip
    pumat = {
        "entry_id": "npcs/pumat-sol",
        "artifact_kind": "dnd/npcs",
        "section": "npcs",
        "name": "Pumat Sol",
        "seen_as": ["Pumat Sol", "pumat  sol"],
        "first_session": "S1",
        "last_session": "S2",
        "sessions": [
            {"session_id": "S1", "lane_id": "npcs", "records": [
                {"record_id": "npc-a1", "name": "Pumat Sol",
                 "units": [["t00012", "t00012"], ["t00040", "t00044"]]}]},
            {"session_id": "S2", "lane_id": "npcs", "records": [
                {"record_id": "npc-b1", "name": "pumat  sol", "units": [["t00007", "t00009"]]}]},
        ],
    }  # fmt: skip
    # Keyleth is the party's in S2 only, yet never an NPC entry, in S1 either
    assert [entry["entry_id"] for entry in data["entries"]] == [
        "items/potion-of-healing",
        "npcs/pumat-sol",
        "places/iron-hearth-tavern",
    ]
    assert data["entries"][1] == pumat
    tavern = data["entries"][2]
    assert tavern["name"] == "The Iron Hearth Tavern"  # ties: the first sorted spelling
    assert tavern["seen_as"] == ["The Iron Hearth Tavern", "iron hearth tavern"]
    assert [s["session_id"] for s in tavern["sessions"]] == ["S1", "S2"]
    # casts by character, by the glossary's name; a cast without a caster is not listed
    assert data["casters"] == [
        {"caster": "Keyleth", "seen_as": ["Keyleth"], "sessions": [
            {"session_id": "S1", "lane_id": "spells", "casts": [
                {"record_id": "spell-a1", "spell": "Cure Wounds", "units": [["t00100", "t00100"]]}]},
            {"session_id": "S2", "lane_id": "spells", "casts": [
                {"record_id": "spell-b1", "spell": "Cure Wounds", "units": [["t00009", "t00009"]]}]},
        ]}
    ]  # fmt: skip
    assert result.receipt() == {
        "status": "ok",
        "registry": REGISTRY_FILE,
        "sessions": 2,
        "published": 2,
        "entries": {"items": 1, "npcs": 1, "places": 1},
        "casters": 1,
    }
    # the typed reader reads back exactly the bytes written; the schema accepts them
    assert (
        registry_bytes(read_registry(root / REGISTRY_FILE)) == (root / REGISTRY_FILE).read_bytes()
    )
    assert (
        list(Draft202012Validator(load_schema("streamer.campaign.registry")).iter_errors(data))
        == []
    )
    assert report_link("S1.html", "npcs", "npc-a1") == "S1.html#record=npcs:npc-a1"


def _npcs(tmp_path: Path, *names: str, glossary: str = "") -> list[tuple[str, list[str]]]:
    records = [(f"npc-{i}", name, [(f"t{i:05}", f"t{i:05}")]) for i, name in enumerate(names)]
    root = _campaign(tmp_path / "out", {"S1": {"npcs": records}})
    path = _glossary(tmp_path, glossary) if glossary else None
    registry = campaign_registry(root, glossary=path).registry
    return [(entry.name, entry.seen_as) for entry in registry.entries]


def test_a_one_word_name_joins_the_one_npc_whose_first_name_it_is(tmp_path: Path) -> None:
    assert _npcs(tmp_path, "Pumat Sol", "Pumat", "the Gentleman", "Gentleman") == [
        ("Gentleman", ["Gentleman", "the Gentleman"]),  # the article folded
        ("Pumat Sol", ["Pumat", "Pumat Sol"]),
    ]


def test_a_one_word_name_of_two_npcs_joins_neither(tmp_path: Path) -> None:
    assert _npcs(tmp_path, "Pumat Sol", "Pumat Smith", "Pumat") == [
        ("Pumat", ["Pumat"]),
        ("Pumat Smith", ["Pumat Smith"]),
        ("Pumat Sol", ["Pumat Sol"]),
    ]


def test_a_glossary_name_never_joins_by_the_short_name_rule(tmp_path: Path) -> None:
    glossary = "names:\n  Pumat: [The Pumat]\n"
    assert _npcs(tmp_path, "Pumat Sol", "Pumat", glossary=glossary) == [
        ("Pumat", ["Pumat"]),
        ("Pumat Sol", ["Pumat Sol"]),
    ]


def test_a_party_characters_first_name_is_no_npc(tmp_path: Path) -> None:
    glossary = "party:\n  - {player: SAM, character: Scanlan Shorthalt, sessions: [S9]}\n"
    assert _npcs(tmp_path, "Scanlan", "scanlan shorthalt", "Kima", glossary=glossary) == [
        ("Kima", ["Kima"])
    ]


def test_a_failed_or_unreadable_session_is_listed_without_entries(tmp_path: Path) -> None:
    root = _campaign(tmp_path / "out", {"S1": S1, "S2": S2})
    (root / "S2" / "lanes" / "npcs.json").write_text("{")
    write_lines(root, [("S1", "failed"), ("S2", "ok"), ("S3", "failed")])
    registry = campaign_registry(root).registry
    assert [(s.session_id, s.status, s.bundle, s.report) for s in registry.sessions] == [
        ("S1", "failed", None, None),
        ("S2", "unreadable", None, None),
        ("S3", "failed", None, None),
    ]
    assert registry.entries == [] and registry.casters == []


def test_the_registry_is_a_listed_schema() -> None:
    assert "streamer.campaign.registry" in api.schema_ids()


def _shuffled_campaign(root: Path, rnd: random.Random) -> Path:
    s3 = {"npcs": [*S1["npcs"], ("npc-c1", "Pumat", [("t00001", "t00002")])]}
    sessions: dict[str, Any] = {"S1": S1, "S2": S2, "S3": s3}
    order = list(sessions)
    rnd.shuffle(order)  # the order the sessions finished in
    for document_id in order:
        lanes = {
            lane: rnd.sample(list(records), len(records))
            for lane, records in sessions[document_id].items()
        }
        write_bundle(root, document_id, lanes)
    lines = [orjson.dumps({"row": row, "document_id": d, "status": "ok"}) + b"\n"
             for row, d in enumerate(sessions, start=2)]  # fmt: skip
    rnd.shuffle(lines)
    (root / "batch.jsonl").write_bytes(b"".join(lines))
    return root


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_same_sessions_same_bytes_whatever_the_order(
    tmp_path_factory: pytest.TempPathFactory, rnd: random.Random
) -> None:
    """Sessions written in any order, records in any order within their lanes,
    ``batch.jsonl`` lines in any order: the same bytes as in manifest order."""
    glossary = tmp_path_factory.mktemp("g") / "glossary.yaml"
    glossary.write_text(GLOSSARY)
    reference = _shuffled_campaign(tmp_path_factory.mktemp("ref"), random.Random(0))
    expected = campaign_registry(reference, glossary=glossary).path.read_bytes()
    root = _shuffled_campaign(tmp_path_factory.mktemp("c"), rnd)
    assert campaign_registry(root, glossary=glossary).path.read_bytes() == expected
    assert b'"npc-c1"' in expected  # S3's "Pumat" joined Pumat Sol's entry


def test_a_record_the_review_rejects_stays_out_of_the_registry(tmp_path: Path) -> None:
    root = _campaign(tmp_path / "out", {"S1": S1, "S2": S2})
    marks = {"npc-b1": Mark(REJECTED, None), "place-b1": Mark(ACCEPTED, "the inn")}
    review = Review("S2", DIGEST, marks)
    review_path(root / "S2").write_bytes(review_bytes(review))
    campaign_registry(root, glossary=_glossary(tmp_path))
    data = orjson.loads((root / REGISTRY_FILE).read_bytes())
    entries = {entry["entry_id"]: entry for entry in data["entries"]}
    # Pumat Sol is cited by S1 alone; the accepted tavern keeps both sessions
    assert [s["session_id"] for s in entries["npcs/pumat-sol"]["sessions"]] == ["S1"]
    assert entries["npcs/pumat-sol"]["last_session"] == "S1"
    tavern = entries["places/iron-hearth-tavern"]
    assert [s["session_id"] for s in tavern["sessions"]] == ["S1", "S2"]

"""A party per session: a glossary ``party`` entry with ``sessions`` (document IDs) holds in
those sessions only, so a player who changes character between sessions casts as the
character of each session, and one session's character is never the party's in another
(there the NPC rules may find them). A single ``streamer run``'s session is its document
ID; a bad ``sessions`` is one error line naming the glossary and the entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from streamer import api
from streamer.api.reports import glossary_party
from streamer.normalization.glossary import Glossary, party_of, session_entries
from tests.run_support import quiet
from tests.support import invoke

SESSION_ONE = """WEBVTT

00:00:01.000 --> 00:00:04.000
<v MATT>Taryon Darrington waves from the docks as you sail.

00:00:05.000 --> 00:00:08.000
<v TRAVIS>I cast Thunderwave at the sahuagin!

00:00:09.000 --> 00:00:12.000
<v SAM>I cast Healing Word on Grog.
"""
SESSION_TWO = """WEBVTT

00:00:01.000 --> 00:00:04.000
<v MATT>Grog waves goodbye from the shore.

00:00:05.000 --> 00:00:08.000
<v TRAVIS>I cast Thunderwave at the sahuagin!

00:00:09.000 --> 00:00:12.000
<v SAM>I cast Healing Word on Taryon.
"""
PARTY = [
    {"player": "SAM", "character": "Scanlan"},
    {"player": "TRAVIS", "character": "Grog", "sessions": ["s1"]},
    {"player": "TRAVIS", "character": "Taryon", "sessions": ["s2"]},
]


def write_inputs(root: Path, party: list[Any]) -> Path:
    glossary = {"party": party, "names": {"Grog": [], "Taryon": ["Taryon Darrington"]}}
    (root / "glossary.yaml").write_text(yaml.safe_dump(glossary, sort_keys=False))
    (root / "s1.vtt").write_text(SESSION_ONE)
    (root / "s2.vtt").write_text(SESSION_TWO)
    (root / "manifest.csv").write_text("transcript,document_id\ns1.vtt,s1\ns2.vtt,s2\n")
    config = {
        "pipeline": {
            "lanes": [
                {"id": "spells", "artifact_kind": "dnd/spell-casts", "engine": "rules"},
                {"id": "npcs", "artifact_kind": "dnd/npcs", "engine": "rules"},
                {"id": "roster", "artifact_kind": "dnd/party-roster"},
            ],
            "normalization": {"glossary": "glossary.yaml"},
        }
    }
    path = root / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def members(bundle: Path, lane: str, *names: str) -> list[tuple[Any, ...]]:
    payload = orjson.loads((bundle / "lanes" / f"{lane}.json").read_bytes())
    return [tuple(record[name] for name in names) for record in payload["records"]]


def test_a_player_who_changes_character_is_each_sessions_caster(tmp_path: Path) -> None:
    config = write_inputs(tmp_path, PARTY)
    result = api.batch(config, tmp_path / "manifest.csv", tmp_path / "out", workers=1)
    assert result.exit_status == 0
    # TRAVIS plays Grog in s1 and Taryon in s2; each session's character is not the
    # party's in the other: there, an NPC
    for session, character, npc in (("s1", "Grog", "Taryon"), ("s2", "Taryon", "Grog")):
        bundle = tmp_path / "out" / session
        assert members(bundle, "spells", "spell", "caster") == [
            ("Thunderwave", character),
            ("Healing Word", "Scanlan"),
        ]
        assert members(bundle, "roster", "player", "character") == [
            ("SAM", "Scanlan"),
            ("TRAVIS", character),
        ]
        assert members(bundle, "npcs", "name") == [(npc,)]


def test_a_single_runs_session_is_its_document_id(tmp_path: Path) -> None:
    config = write_inputs(tmp_path, PARTY)
    two = tmp_path / "two"
    api.run(config, tmp_path / "s2.vtt", "webvtt", two, document_id="s2", warn=quiet)
    assert members(two, "spells", "caster") == [("Taryon",), ("Scanlan",)]
    other = tmp_path / "other"  # a session no entry names: the entries of every session
    api.run(config, tmp_path / "s2.vtt", "webvtt", other, document_id="s9", warn=quiet)
    assert members(other, "roster", "player", "character") == [("SAM", "Scanlan")]
    registry = api.default_registry()
    glossary = tmp_path / "glossary.yaml"
    assert dict(glossary_party(glossary, registry, "s1")) == {"SAM": "Scanlan", "TRAVIS": "Grog"}
    assert dict(glossary_party(glossary, registry, "s2")) == {
        "SAM": "Scanlan",
        "TRAVIS": "Taryon",
    }


def test_the_entries_of_a_session() -> None:
    terms = Glossary(sections={"party": PARTY})
    assert session_entries(PARTY, "s2") == [PARTY[0], {"player": "TRAVIS", "character": "Taryon"}]
    assert session_entries(PARTY, None) == [PARTY[0]]
    assert dict(party_of(terms)) == {"SAM": "Scanlan"}
    two = [{"player": "TRAVIS", "character": "Grog", "sessions": ["s1", "s2"]}]
    assert dict(party_of(Glossary(sections={"party": two}), "s2")) == {"TRAVIS": "Grog"}


@pytest.mark.parametrize("sessions", ["s1", [], [""], [1], None])
def test_a_bad_sessions_is_one_line_naming_the_glossary_and_the_entry(
    tmp_path: Path, sessions: Any
) -> None:
    party = [PARTY[0], {"player": "TRAVIS", "character": "Grog", "sessions": sessions}]
    config = write_inputs(tmp_path, party)
    run = invoke(["run", str(tmp_path / "s1.vtt"), "--config", str(config), "--output", "o"])
    assert run.status == 2
    assert run.stderr == (  # found before the first stage: nothing imported, no work folder
        f"streamer: error: glossary {tmp_path / 'glossary.yaml'}: $.party[1].sessions must "
        "be a non-empty list of session IDs (hint: the document IDs of the sessions the "
        "entry belongs to, e.g. sessions: [C1E001, C1E030])\n"
    )
    assert not (tmp_path / "o").exists()
    assert not (tmp_path / "o.work").exists()

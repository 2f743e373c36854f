"""``engine: rules`` for ``dnd/npc-interactions``: a party player addressing a present NPC,
by name (a vocative) or by ``you`` in answer to the game master voicing them; never a
mention while planning or recollecting, table talk, or talk about an absent NPC."""

from __future__ import annotations

from typing import Any

import pytest

from streamer.domain.dnd.interaction_rules import NO_PARTY, NpcInteractionRules
from streamer.domain.dnd.npc_rules import NO_NAMES
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

PARTY = {"LAURA": "Vex'ahlia", "SAM": "Scanlan Shorthalt"}
NAMES = {
    "vex'ahlia": "Vex'ahlia",
    "vex": "Vex'ahlia",
    "scanlan shorthalt": "Scanlan Shorthalt",
    "scanlan": "Scanlan Shorthalt",
    "brenna": "Brenna",
    "gilmore": "Gilmore",
    "captain ardent": "Ardent",
    "devana": "Devana",
    "syldor": "Syldor",
    "ardent": "Ardent",
}


def run(*lines: tuple[str | None, str]) -> list[dict[str, Any]]:
    units = [ShownUnit(f"u{i}", speaker, text) for i, (speaker, text) in enumerate(lines, 1)]
    return NpcInteractionRules()(units, RulesContext(PARTY, NAMES))


def record(npc: str, *units: str) -> dict[str, Any]:
    return {"npc": npc, "source_refs": [{"start_unit_id": u, "end_unit_id": u} for u in units]}


def test_a_present_npc_addressed_by_name() -> None:
    assert run(
        ("MATT", "Brenna wipes the counter as you come in."),
        ("LAURA", "Brenna, where is the key?"),
        ("SAM", "Oh, hey Brenna."),
        ("LAURA", "We need rooms for the night, Brenna."),
        ("SAM", "Thank you, Brenna."),
    ) == [
        record("Brenna", "u2"),
        record("Brenna", "u3"),
        record("Brenna", "u4"),
        record("Brenna", "u5"),
    ]


def test_you_in_answer_to_the_npc_the_game_master_voices() -> None:
    assert run(
        ("MATT", "Captain Ardent turns from the wheel and goes, \u201cWho are you lot?\u201d"),
        ("LAURA", "We're travelers. Would you take us south?"),
    ) == [record("Ardent", "u1", "u2")]


def test_two_npcs_addressed_in_one_unit_give_two() -> None:
    assert run(
        ("MATT", "Brenna and Gilmore look up from the table."),
        ("SAM", "Hello Brenna! Gilmore, good to see you."),
    ) == [record("Brenna", "u2"), record("Gilmore", "u2")]


@pytest.mark.parametrize(
    "lines",
    [
        # a mention while planning, or a recollection
        [("MATT", "Brenna waves."), ("LAURA", "Let's see if Brenna has rooms, Gilmore.")],
        [("MATT", "Brenna waves."), ("SAM", "Remember what you said, Brenna?")],
        # talk about the NPC, not to them
        [("MATT", "Brenna waves."), ("LAURA", "Brenna seems nice.")],
        # not present: the game master has not named them in the chunk
        [("LAURA", "Brenna, where is the key?")],
        [("MATT", "Brenna waves.")]
        + [("MATT", "Time passes.")] * 10
        + [("LAURA", "Brenna, where is the key?")],
        # an exclamation, and table talk
        [("MATT", "Brenna falls."), ("LAURA", "No, Brenna!")],
        [("MATT", "Brenna waves."), ("SAM", "Brenna, can I roll insight on you?")],
        # "you" to the game master or to the party, or after no voice
        [("MATT", "Ardent goes, \u201cAye.\u201d"), ("LAURA", "Do I see any guards around you?")],
        [("MATT", "Ardent goes, \u201cAye.\u201d"), ("LAURA", "Vex, you should go first.")],
        [("MATT", "Ardent steers the ship."), ("LAURA", "Would you take us south?")],
        [("MATT", "Ardent goes, \u201cAye.\u201d"), ("SAM", "Nice."), ("LAURA", "Thank you.")],
        # the game master voices someone else after naming the NPC
        [
            (
                "MATT",
                "Ardent goes, \u201cAye.\u201d A woman in grey robes steps out of the "
                "crowd behind him and says, \u201cWait.\u201d",
            ),
            ("LAURA", "Who are you?"),
        ],
        # the game master's own turns and a speaker the party does not list
        [("MATT", "Brenna, you say? Brenna, yes.")],
        [("MATT", "Brenna waves."), ("TRAVIS", "Brenna, hello!")],
    ],
)
def test_not_an_interaction(lines: list[tuple[str, str]]) -> None:
    assert run(*lines) == []


def test_without_names_or_party_nothing_and_a_note() -> None:
    rules = NpcInteractionRules()
    units = [ShownUnit("u1", "MATT", "Brenna waves."), ShownUnit("u2", "LAURA", "Hi Brenna!")]
    assert rules(units, RulesContext(PARTY, {"vex": "Vex'ahlia"})) == []
    assert rules.note(RulesContext(PARTY, {"vex": "Vex'ahlia"})) == NO_NAMES
    assert rules(units, RulesContext({}, NAMES)) == []
    assert rules.note(RulesContext({}, NAMES)) == NO_PARTY
    assert rules.note(RulesContext(PARTY, NAMES)) is None


def test_the_voice_is_the_npc_who_speaks_not_one_named_by_the_way() -> None:
    assert run(
        (
            "MATT",
            "The door opens: you recognize Devana, the wife of Syldor, and she goes, "
            "\u201cWelcome.\u201d",
        ),
        ("LAURA", "Thank you for having us."),
    ) == [record("Devana", "u1", "u2")]

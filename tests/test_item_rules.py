"""``engine: rules`` for ``dnd/item-events``: money in the lane's form, item names through
the SRD catalog, and the events a unit tells (found, handed over, taken, used, given), each
an exact candidate; what the rules never count, each tested too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from streamer import api
from streamer.domain.dnd.item_rules.catalog import item_key, srd_items
from streamer.domain.dnd.item_rules.currency import amount, currency
from streamer.domain.dnd.item_rules.rules import ItemEventRules
from streamer.domain.dnd.normalization_specs import ITEM_EVENTS
from streamer.domain.dnd.spell_catalog import match_key
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.kinds.normalization_spec import Collapse

PARTY = {"LAURA": "Vex'ahlia", "TRAVIS": "Grog Strongjaw", "SAM": "Scanlan Shorthalt"}
NAMES = {
    "vex": "Vex'ahlia",
    "vex'ahlia": "Vex'ahlia",
    "grog": "Grog Strongjaw",
    "grog strongjaw": "Grog Strongjaw",
    "scanlan": "Scanlan Shorthalt",
    "scanlan shorthalt": "Scanlan Shorthalt",
}

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
]
_ONES += ["fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def spelled(number: int) -> str:
    """The reference: ``number`` (1-9999) in English words, as a person says it."""
    parts: list[str] = []
    if number >= 1000:
        parts += [_ONES[number // 1000], "thousand"]
        number %= 1000
    if number >= 100:
        parts += [_ONES[number // 100], "hundred"]
        number %= 100
    if number >= 20:
        parts.append(_TENS[number // 10])
        number %= 10
    if number:
        parts.append(_ONES[number])
    return " ".join(parts)


@given(st.integers(min_value=1, max_value=9999))
def test_an_amount_in_words_is_its_number(number: int) -> None:
    assert amount(spelled(number).split()) == number
    assert currency([*spelled(number).split(), "gold"]) == f"{number} gold pieces"


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("50 gold", "50 gold pieces"),
        ("fifty gold pieces", "50 gold pieces"),
        ("1,000 gp", "1000 gold pieces"),
        ("5gp", "5 gold pieces"),
        ("a silver piece", "1 silver pieces"),
        ("three pieces of silver", "3 silver pieces"),
        ("two hundred and fifty platinum", "250 platinum pieces"),
        ("a hundred copper coins", "100 copper pieces"),
        ("the gold", "gold pieces"),
        ("gold", "gold pieces"),
        ("gold ring", None),
        ("five five gold", None),
        ("gp", None),
    ],
)
def test_currency_is_written_as_the_lane_writes_it(words: str, expected: str | None) -> None:
    assert currency(words.split()) == expected


@pytest.mark.parametrize(
    ("spoken", "canonical"),
    [
        ("bag of holding", "Bag of Holding"),
        ("a healing potion", "Potion of Healing"),
        ("potions of healing", "Potion of Healing"),
        ("daggers", "Dagger"),
        ("a ball bearing", "Ball Bearings"),  # a plural name said in the singular
        ("caltrop", "Caltrops"),
        ("thieves tools", "Thieves' Tools"),
        ("hempen rope", "Rope, hempen (50 feet)"),
        ("glass bottle", "Bottle, Glass"),
        ("fifty gold", "50 gold pieces"),
        ("Gold Piece", "gold pieces"),
        ("adamantine armor", "adamantine armor"),  # several catalog names: none is meant
        ("obsidian key", "obsidian key"),
    ],
)
def test_the_catalog_canonicalizes_item_names(spoken: str, canonical: str) -> None:
    assert srd_items().canonical(spoken) == canonical


def test_item_events_are_one_event_told_nearby_the_holder_optional() -> None:
    assert ITEM_EVENTS.collapse is Collapse.NEARBY
    assert ITEM_EVENTS.optional_members == ("holder",)
    catalog = ITEM_EVENTS.catalogs["item"]
    assert catalog.canonical("twenty platinum") == "20 platinum pieces"
    assert catalog.canonical("healing potion") == "Potion of Healing"


def run(*lines: tuple[str | None, str], party: bool = True) -> list[dict[str, Any]]:
    units = [ShownUnit(f"u{i}", speaker, text) for i, (speaker, text) in enumerate(lines, 1)]
    context = RulesContext(PARTY, NAMES) if party else RulesContext()
    found = ItemEventRules()(units, context)
    assert found == ItemEventRules(prefilter=False)(units, context)
    return found


def record(item: str, event: str, holder: str | None, unit: str) -> dict[str, Any]:
    reference = {"start_unit_id": unit, "end_unit_id": unit}
    return {"item": item, "event": event, "holder": holder, "source_refs": [reference]}


def test_found_by_the_party_money_and_magic_items() -> None:
    assert run(
        ("MATT", "Grog, you find a Bag of Holding and 50 gold pieces in the crate."),
        ("MATT", "Rifling through his pockets, you find 12 gold, 30 silver, two platinum."),
        ("MATT", "You also find a pouch that holds 200 platinum coins."),
    ) == [
        record("bag of holding", "acquired", "Grog Strongjaw", "u1"),
        record("50 gold pieces", "acquired", "Grog Strongjaw", "u1"),
        record("12 gold", "acquired", None, "u2"),
        record("30 silver", "acquired", None, "u2"),
        record("two platinum", "acquired", None, "u2"),
        record("200 platinum coins", "acquired", None, "u3"),
    ]


def test_handed_over_in_narration() -> None:
    assert run(
        ("MATT", "The old woman hands Grog the Cloak of Elvenkind."),
        ("MATT", "He hands you a pouch with 200 platinum. \u201cFor your trouble.\u201d"),
        ("MATT", "Scanlan tosses Vex the potion of healing."),
    ) == [
        record("cloak of elvenkind", "acquired", "Grog Strongjaw", "u1"),
        record("200 platinum", "acquired", None, "u2"),
        record("potion of healing", "transferred", "Vex'ahlia", "u3"),
    ]


def test_first_person_take_use_and_give() -> None:
    assert run(
        ("LAURA", "I drink my potion of healing."),
        ("SAM", "I use my thieves' tools on the lock."),
        ("TRAVIS", "I pick up the bag of holding."),
        ("LAURA", "I give Grog the potion of greater healing."),
        ("MATT", "\u201cThat will be 5 gold.\u201d"),
        ("SAM", "I pay him 5 gold."),
        ("MATT", "The barkeep slides a mug over."),
        ("LAURA", "Here's 2 silver from my purse."),
        ("TRAVIS", "I'm tossing a copper piece over to Scanlan."),
    ) == [
        record("potion of healing", "used", "Vex'ahlia", "u1"),
        record("thieves tools", "used", "Scanlan Shorthalt", "u2"),
        record("bag of holding", "acquired", "Grog Strongjaw", "u3"),
        record("potion of greater healing", "transferred", "Grog Strongjaw", "u4"),
        record("5 gold", "lost", "Scanlan Shorthalt", "u6"),
        record("2 silver", "lost", "Vex'ahlia", "u8"),
        record("a copper piece", "transferred", "Scanlan Shorthalt", "u9"),
    ]


def test_used_in_narration_and_phrases_ending_in_a_clause() -> None:
    assert run(
        ("MATT", "As you throw the ball bearing and it hits, some of it breaks away."),
        ("MATT", "Grog, you drink the potion of healing."),
        ("SAM", "I'll light my torch once I get down there."),  # Torch: gear, lit
        ("TRAVIS", "Ha."),
        ("LAURA", "Here is 100 gold were on those people, so you take it."),
    ) == [
        record("ball bearing", "used", None, "u1"),
        record("potion of healing", "used", "Grog Strongjaw", "u2"),
        record("torch", "used", "Scanlan Shorthalt", "u3"),
        record("100 gold", "transferred", None, "u5"),
    ]


def test_given_to_you_follows_who_spoke_before() -> None:
    assert run(
        ("SAM", "I'm broke."),
        ("LAURA", "Here's 10 gold."),  # to a party player: transferred, name unsaid
        ("MATT", "\u201cThe room is 4 silver.\u201d"),
        ("LAURA", "I give you 4 silver."),  # to the game master's NPC: lost
    ) == [
        record("10 gold", "transferred", None, "u2"),
        record("4 silver", "lost", "Vex'ahlia", "u4"),
    ]


def test_given_to_someone_addressed_by_name() -> None:
    assert run(
        ("LAURA", "Pay the man."),
        ("SAM", "Here you go, Jorge. Here's one platinum."),  # a name no party character's
        ("LAURA", "I'm out of coin."),
        ("SAM", "Here you go, Grog. Here's one platinum."),
    ) == [
        record("one platinum", "lost", None, "u2"),  # "I" unsaid: the giver is not said
        record("one platinum", "transferred", "Grog Strongjaw", "u4"),
    ]


def test_without_a_party_the_holder_is_the_speakers_label() -> None:
    assert run(
        ("LAURA", "I drink a potion of healing."),
        ("LAURA", "I give you 4 silver."),  # "you" is nobody known: nothing
        party=False,
    ) == [record("potion of healing", "used", "LAURA", "u1")]


@pytest.mark.parametrize(
    ("speaker", "text"),
    [
        ("LAURA", "Can I drink my potion of healing?"),  # a question
        ("LAURA", "If I drink the potion of healing, do I fly?"),  # a condition
        ("LAURA", "Maybe I use the bag of holding."),  # a hedge
        ("LAURA", "I should drink a potion of healing."),  # a modal after I
        ("LAURA", "I'll give you a whole gold piece."),  # an offer in talk
        ("LAURA", "I take a sack of gold out of my pocket."),  # already hers
        ("LAURA", "I take my staff and slam it down."),  # already hers
        ("LAURA", "I take out my flute."),
        ("LAURA", "I throw my dagger at him."),  # a weapon: an attack, not used
        ("LAURA", "I take the gold."),  # money taken without an amount
        ("MATT", "You find books on farming and a ledger."),  # everyday gear found
        ("MATT", "You find a chest worth 500 gold."),  # a price
        ("MATT", "You pull out your arrow."),  # already theirs
        ("MATT", "Did you find the bag of holding?"),
        ("MATT", "You find a small obsidian key."),  # not the catalog's: left to a model
        ("MATT", "\u201cI give you the Cloak of Elvenkind.\u201d"),  # an NPC's I
        ("SAM", "You find a bag of holding."),  # a player narrates nothing found
        ("MATT", "If you drink the potion of healing, you heal."),  # a condition
        ("MATT", "You can use your thieves' tools."),  # a modal
        ("MATT", "As you throw your orb, it skitters up the wall."),  # a spellcasting focus
        ("MATT", "You throw a dagger at the nearest one."),  # a weapon: an attack
        ("LAURA", "I use my wand."),  # a focus, no magic wand named
    ],
)
def test_not_an_event(speaker: str, text: str) -> None:
    assert run((speaker, text)) == []


def test_run_publishes_canonical_items_that_the_support_check_accepts(tmp_path: Path) -> None:
    lines = [
        "MATT: Vex, you find a bag of holding and fifty gold.",
        "LAURA: I drink my healing potion.",
        "MATT: You drink the potion.",
        "LAURA: I give Grog two gold.",
    ]
    text = tmp_path / "s.txt"
    text.write_text("\n".join(lines) + "\n")
    source = tmp_path / "session.jsonl"
    api.import_transcript("text", text, output=source)
    config_path = tmp_path / "streamer.yaml"
    lane = {"id": "items", "artifact_kind": "dnd/item-events"}
    pipeline = {"lanes": [lane], "extraction": {"engine": "rules"}}
    config_path.write_text(yaml.safe_dump({"pipeline": pipeline}))
    glossary = tmp_path / "campaign.yaml"
    party = [{"player": "LAURA", "character": "Vex'ahlia"}]
    party.append({"player": "TRAVIS", "character": "Grog Strongjaw"})
    names = {"Vex'ahlia": ["Vex"], "Grog Strongjaw": ["Grog"]}
    glossary.write_text(yaml.safe_dump({"party": party, "names": names}))
    config = api.load_config(config_path)
    api.extract(config, source, tmp_path / "c", glossary=glossary)
    api.normalize(config, source, tmp_path / "c", tmp_path / "n", glossary=glossary)
    records = json.loads((tmp_path / "n" / "items.json").read_text())["records"]
    assert [
        (r["item"], r["event"], r["holder"], [x["start_unit_id"] for x in r["source_refs"]])
        for r in records
    ] == [
        ("50 gold pieces", "acquired", "Vex'ahlia", ["u000001"]),
        ("Bag of Holding", "acquired", "Vex'ahlia", ["u000001"]),
        ("Potion of Healing", "used", "Vex'ahlia", ["u000002"]),
        ("2 gold pieces", "transferred", "Grog Strongjaw", ["u000004"]),
    ]


@given(st.text())
def test_the_item_key_is_the_catalog_match_key(text: str) -> None:
    assert item_key(text) == match_key(text)

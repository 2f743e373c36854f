"""The spell-cast rules of ``dnd/spell-casts-rules@7`` (issue 31) that read the turns around
a unit: a name said alone with a sound or acknowledged, an option picked, a cast taken
back ``instead`` (the forms of one unit are in ``test_extract_spell_rules``)."""

from __future__ import annotations

from streamer.domain.dnd.rules import SpellCastRules
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from tests.test_extract_spell_rules import shown

ME = "Tiberius Stormwind"

PARTY = RulesContext(party={"ORION": ME, "MARISHA": "Keyleth", "SAM": "Nott"})


def found(units: list[ShownUnit]) -> list[tuple[str, str | None, str]]:
    """The candidates of a chunk, read through the gate and unit by unit (the same)."""
    gated = SpellCastRules()(units, PARTY)
    assert SpellCastRules(prefilter=False)(units, PARTY) == gated
    return [(r["spell"], r["caster"], r["source_refs"][0]["start_unit_id"]) for r in gated]


def test_a_name_said_alone_counts_with_a_sound_or_the_game_masters_acknowledgement() -> None:
    """C1E001 t01817 "Wall of Stone-- boom." (a name that is no ordinary word, with a
    sound); a name that is an ordinary word said alone counts when the game master
    acknowledges it ("Shield." / "All right.") or with a gesture ("Oh, light! (snaps)"),
    never alone, after laughter, or when it is an exclamation ("Weird.")."""
    units = shown(
        ("MARISHA", "Wall of Stone-- boom."),
        ("MATT", "All right. A giant wall of stone now completely seals off the mine."),
        ("ORION", "Shield."),
        ("MATT", "All right."),
        ("ORION", "Oh, light! (snaps)"),
        ("TALIESIN", "Thank you."),
        ("ORION", "Light."),
        ("MARISHA", "It's really dark."),
        ("ORION", "Light! (laughter)"),
        ("MATT", "Make a perception check."),
        ("ORION", "Weird."),
        ("MATT", "All right."),
    )
    assert found(units) == [
        ("Wall of Stone", None, "t00000"),
        ("Shield", None, "t00002"),
        ("Light", None, "t00004"),
    ]


def test_a_name_said_alone_that_picks_an_option_its_speaker_named_is_no_cast() -> None:
    """ "With either Mage Hand, or my own hand" / "Up to you." / "Mage Hand.": the player
    picks how to steal (a sleight of hand check follows), no cast. After a cast the
    speaker declared, the name said again is kept: normalization joins the two."""
    units = shown(
        ("SAM", "With either Mage Hand, or my own hand, whatever's--"),
        ("MATT", "Up to you."),
        ("SAM", "Mage Hand."),
        ("MATT", "All right."),
    )
    assert found(units) == []
    declared = shown(
        ("SAM", "I cast Mage Hand."),
        ("MATT", "What for?"),
        ("SAM", "Mage Hand."),
        ("MATT", "All right."),
    )
    assert found(declared) == [("Mage Hand", "Nott", "t00000"), ("Mage Hand", None, "t00002")]


def test_a_cast_said_instead_takes_back_the_casters_cast_just_before() -> None:
    """C1E001 t01658 "I'm going to shoot a Scorching Ray at the big guy." and, eight units
    later, t01666 "I'm going to do a Fireball instead": one cast, the Fireball. Another
    caster's cast, or one further off, stays."""
    filler = ("MATT", "These guys here are entangled.")
    units = shown(
        ("MARISHA", "I cast Entangle on the goblins."),
        ("ORION", "I'm going to shoot a Scorching Ray at the big guy."),
        *[filler] * 6,
        ("ORION", "Actually, I'm going to do a Fireball instead, right in the center."),
    )
    assert found(units) == [("Entangle", "Keyleth", "t00000"), ("Fireball", ME, "t00008")]
    far = shown(
        ("ORION", "I'm going to shoot a Scorching Ray at the big guy."),
        *[filler] * 10,
        ("ORION", "I'm going to do a Fireball instead."),
    )
    assert found(far) == [("Scorching Ray", ME, "t00000"), ("Fireball", ME, "t00011")]


def test_without_a_party_a_name_said_alone_counts_from_any_speaker_but_the_game_master() -> None:
    """No glossary (C1E001 t01401, MARISHA: "Druidcraft." and t01817 "Wall of Stone--
    boom."): the survey counts the speakers, the game master is the speaker of the most
    units (MATT), and every other speaker whose label names one speaker is a player. Before
    a survey nothing counts said alone: no speaker is known to be a player."""
    units = shown(
        ("MATT", "What do you do?"),
        ("MARISHA", "Druidcraft."),
        ("MATT", "Druidcraft! Thank you. Portions of the wood begin to sprout."),
        ("MATT", "All right, Wall of Stone."),
        ("MARISHA", "Wall of Stone-- boom."),
        ("MATT", "Misty Step."),
        ("LAURA, SAM", "Hunter's Mark."),
        ("MATT", "All right. A giant wall of stone now completely seals off the mine."),
    )
    rules = SpellCastRules()
    before = RulesContext()
    assert rules(units, before) == []
    context = RulesContext()
    rules.survey(units[:4], context)  # the survey sees a chunk's new units, in order
    rules.survey(units[4:], context)
    gated = rules(units, context)
    assert gated == SpellCastRules(prefilter=False)(units, context)
    assert [(r["spell"], r["caster"], r["source_refs"][0]["start_unit_id"]) for r in gated] == [
        ("Druidcraft", None, "t00001"),
        ("Wall of Stone", None, "t00004"),
    ]
    # with a party, the survey counts nothing and the party says who plays
    rules.survey(units, PARTY)
    assert "dnd/spell-casts speakers" not in PARTY.memo

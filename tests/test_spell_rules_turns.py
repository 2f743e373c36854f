"""The spell-cast rules of ``dnd/spell-casts-rules@6`` (issue 31): each new form on the dev
episodes' words (C1E001, C2E001, C2E035, unit IDs given) and the exclusion beside it; the
rules that read the turns around a unit (a name said alone and acknowledged, an option
picked, a cast taken back ``instead``)."""

from __future__ import annotations

import pytest

from streamer.domain.dnd.rules import SpellCastRules, SpellRules, casts
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

ME = "Tiberius Stormwind"

# (text, the reply when the next unit is another speaker's, expected (spell, caster))
CASES = [
    # shoot, aimed: C1E001 t01658; not aimed, taken back the next moment: C1E001 t00768
    ("I'm going to shoot a Scorching Ray at the big guy.", None, [("Scorching Ray", ME)]),
    ("I'm going to shoot a Fireball. Right in front of me.", None, []),
    ("Can I shoot an arrow at Nott?", "Yes.", []),  # C2E001 t01228: no spell
    # unleash: C2E035 t01708
    (
        "I'm going to stand out here and I'll unleash two Eldritch Blasts at this Enforcer.",
        None,
        [("Eldritch Blast", ME)],
    ),
    ("I'll unleash my fury on him.", None, []),
    # a size among the fillers: C1E001 t01555; "all three of the" (asked and allowed)
    (
        "I'm going to throw a little Fireball, right there where those guys are.",
        None,
        [("Fireball", ME)],
    ),
    (
        "Can I go and fire all three of the Scorching Ray balls at the spider?",
        "You may. Make your three attacks with disadvantage.",
        [("Scorching Ray", ME)],
    ),
    ("Can I go and fire all three of the Scorching Ray balls at the spider?", None, []),
    # an aside between dashes after the casting verb: C2E035 t01608
    (
        "Okay, I'm going to cast-- fuck. I'll move forward-- well, yeah, to be closer to "
        "Beau, and I'm going to cast-- fuck it-- Sanctuary.",
        None,
        [("Sanctuary", ME)],
    ),
    ("I'm going to cast-- wait, how far away is he?", None, []),
    # a wish said as a plan: C2E001 t01353; a condition stays one
    (
        "I would like to use my bonus action to cast Hex on it.",
        None,
        [("Hex", ME)],
    ),
    ("I would cast Hex on it if I had a slot.", None, []),
    # the group's plan, not one's cast: "let's"
    ("We can do that. Let's cast Pass Without a Trace.", None, []),
    # summoning makes what it names, a spell kept up too (no dev example: none in the
    # dev set); not a creature, not a plan
    (
        "So you complete your ritual. You summon your Unseen Servant.",
        None,
        [("Unseen Servant", None)],
    ),
    ("I summon Frumpkin in the alley.", None, []),
    ("I could summon my Unseen Servant.", None, []),
    ("I send my Unseen Servant over to the door.", None, []),  # one already up
    # give <spell> a whirl, a name that is an ordinary word too (no dev example: none)
    (
        "I'm hanging back and giving Identify a whirl on what's in my bag.",
        None,
        [("Identify", ME)],
    ),
    ("Let's give Identify a whirl.", None, []),
    ("Give it a whirl.", None, []),
]


@pytest.mark.parametrize(("text", "reply", "expected"), CASES)
def test_each_form_and_its_exclusion(
    text: str, reply: str | None, expected: list[tuple[str, str | None]]
) -> None:
    rules = SpellRules.of(RulesContext())
    assert casts(text, rules, ME, reply) == expected


def shown(*lines: tuple[str, str]) -> list[ShownUnit]:
    return [ShownUnit(f"t{i:05d}", speaker, text) for i, (speaker, text) in enumerate(lines)]


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

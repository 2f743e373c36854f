"""The spell-cast rules of ``dnd/spell-casts-rules@7`` (issue 31): each rule on an example
modelled on the dev episodes' transcripts, and the exclusion beside it; the casts of a
chunk (a repeat of a cast); the caster without a glossary, through a whole run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from streamer import api
from streamer.domain.dnd.rules import REPEAT_UNITS, SpellCastRules, SpellRules, casts
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

ME = "Keyleth"

# (text, the reply when the next unit is another speaker's, expected (spell, caster))
CASES = [
    # a question the game master allows, with a spell's name used as a verb or a verb
    (
        "Can I use my bonus action to Misty Step up to the ledge?",
        "Go for it.",
        [("Misty Step", ME)],
    ),
    ("Can I use my bonus action to Misty Step up to the ledge?", "Sure.", [("Misty Step", ME)]),
    ("Could I throw a Healing Word at Grog?", "Yeah, roll it.", [("Healing Word", ME)]),
    ("Can I fire a Guiding Bolt at the ogre?", "Roll for the attack.", [("Guiding Bolt", ME)]),
    ("Can I cast Hold Person on him?", "Okay. Make a wisdom saving throw.", [("Hold Person", ME)]),
    ("Can I cast Hold Person on him?", "Okay. Make sure you have the slot.", []),
    ("Can I use my bonus action to Misty Step up to the ledge?", "No, it's too far.", []),
    ("Can I use my bonus action to Misty Step up to the ledge?", None, []),
    ("Yeah, roll it.", None, []),
    # plurals and counts
    ("I fire three Magic Missiles at the one on the left.", None, [("Magic Missile", ME)]),
    ("I'm going to cast two Scorching Rays at him.", None, [("Scorching Ray", ME)]),
    ("I have three Magic Missiles left.", None, []),
    # more verbs: send with a possessive, hit ... with, drop with an article or a count
    ("I send my Magic Missile out at the goblin.", None, [("Magic Missile", ME)]),
    ("I hit him with a Guiding Bolt.", None, [("Guiding Bolt", ME)]),
    ("I hit the one by the door with my Fire Bolt.", None, [("Fire Bolt", ME)]),
    ("I drop a Fireball right in the middle of them.", None, [("Fireball", ME)]),
    ("I drop Polymorph.", None, []),  # ending a spell
    ("I send my Spiritual Weapon over to the archer.", None, []),  # a spell already up
    ("The Guiding Bolt hit him with a flash.", None, []),
    # a spell's name as a verb after a preamble in its sentence
    ("First, I'm going to Misty Step behind the dragon.", None, [("Misty Step", ME)]),
    (
        "I'm going to use my bonus action to use the charge on the ring-- doesn't use a "
        "spell slot-- to Misty Step up onto the mast.",
        None,
        [("Misty Step", ME)],
    ),
    ("I turn around and Misty Step out of the room.", None, [("Misty Step", ME)]),
    ("I want to Misty Step away from him.", None, [("Misty Step", ME)]),
    ("I have Fireball and Misty Step prepared.", None, []),
    ("I'm going to switch to Fire Bolt for now.", None, []),
    ("If he moves, I'm going to use my reaction to Misty Step.", None, []),
    # a plain first-person cast behind a preamble: the caster from the sentence
    (
        "I am going to do a bonus action to cast Shield of Faith on myself.",
        None,
        [("Shield of Faith", ME)],
    ),
    ("Do I cast Shield of Faith on myself", None, []),
    # a cast whose sentence goes on into another (a dash, words said after a colon)
    (
        "Then I'm going to cast Sacred Flame at-- can I see anybody on the deck?",
        None,
        [("Sacred Flame", ME)],
    ),
    (
        "I use Vicious Mockery on it and say: Hey, toothy, what's up?",
        None,
        [("Vicious Mockery", ME)],
    ),
    # the game master's narration confirming a cast
    ("Okay. Stoneskin is placed on you.", None, [("Stoneskin", None)]),
    ("As the Hold Person takes hold, his arms lock at his sides.", None, [("Hold Person", None)]),
    ("The chest now has Arcane Lock on it.", None, [("Arcane Lock", None)]),
    ("Does the Hold Person take hold?", None, []),
    ("Arcane Lock is placed on doors, usually.", None, []),
    # a spell the catalog does not hold, after a casting verb: as the transcript says it
    ("I cast Grand Column under myself.", None, [("Grand Column", ME)]),
    (
        "I'm going to go ahead and cast Armor of Agathys, get the frost on me.",
        None,
        [("Armor of Agathys", ME)],
    ),
    ("I cast Glacial Blast forward.", None, [("Glacial Blast", ME)]),
    ("I'm going to cast Turn Undead.", None, []),  # a class feature
    ("I cast Hexblade's Curse on the captain.", None, []),
    ("I cast it on the door.", None, []),
    # a cast again, other verbs and their participles, a name run together (v5)
    ("I'm going to re-cast Mage Hand and pick up the rope.", None, [("Mage Hand", ME)]),
    ("I recast Hunter's Mark on the next one.", None, [("Hunter's Mark", ME)]),
    ("She re-casts Mage Hand.", None, [("Mage Hand", None)]),
    ("I'm firing a Scorching Ray at the big guy.", None, [("Scorching Ray", ME)]),
    ("I'm blasting a Sunbeam at the three of them.", None, [("Sunbeam", ME)]),
    ("I'm using Vicious Mockery on him.", None, [("Vicious Mockery", ME)]),
    ("I will send a firebolt at the one across the way.", None, [("Fire Bolt", ME)]),
    ("I shoot a Scorching Ray at him.", None, [("Scorching Ray", ME)]),  # shoot, aimed
    ("I'm going to shoot a Fireball. Right in front of me.", None, []),  # not aimed
    ("The firebolt scorched the wall.", None, []),
    # a spell already up, with a definite article
    ("Bonus action, I will use the Mage Hand to deliver the rope.", None, []),
    ("I will use Mage Hand to deliver the rope.", None, [("Mage Hand", ME)]),
    # the past of a reason given for the cast is not the cast's
    (
        "He's going to cast Eldritch Blast because I saw him do that once before.",
        None,
        [("Eldritch Blast", None)],
    ),
    ("I cast Eldritch Blast once before.", None, []),
    # suggestions and plans
    ("At some point we'll cast Detect Magic.", None, []),
    ("We will cast Detect Magic on the chest.", None, []),
    ("Or you know, use Fog Cloud on the doorway.", None, []),
    ("Maybe we can do a Fog Cloud.", None, []),
    ("Why don't you throw a Healing Word on him?", None, []),
    ("What about you cast Fireball there", None, []),
    # casts recalled
    ("I've cast Mending on an object before.", None, []),
    ("I cast Mending on that sword last time.", None, []),
    ("I already cast Bless on us.", None, []),
    ("Yesterday I cast Fireball at them.", None, [("Fireball", ME)]),  # said before: a cast
    # rules read aloud
    ("So Fire Bolt on the goblin, it says right here, is a d10.", None, []),
    ("I cast Fire Bolt. It says 120 feet in the description.", None, []),
    # v6, on the dev episodes' words (C1E001, C2E001, C2E035, unit IDs given)
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
def test_each_rule_and_its_exclusion(
    text: str, reply: str | None, expected: list[tuple[str, str | None]]
) -> None:
    rules = SpellRules.of(RulesContext())
    assert casts(text, rules, ME, reply) == expected


def shown(*lines: tuple[str, str]) -> list[ShownUnit]:
    return [ShownUnit(f"t{i:05d}", speaker, text) for i, (speaker, text) in enumerate(lines)]


FILLER = ("SAM", "I look around.")


def test_a_repeat_of_a_cast_further_off_than_normalization_joins_is_no_second_cast() -> None:
    """ "What level?" / "Third level Fireball." after the declaration: one candidate; the
    same name within five units is kept (normalization joins the two into one record);
    a cast naming its caster again is another cast."""
    context = RulesContext(party={"MARISHA": "Keyleth"})
    units = shown(
        ("MARISHA", "I'm gonna cast Fireball at the cart."),
        *[FILLER] * 10,
        ("MATT", "What level?"),
        ("MARISHA", "Third level Fireball."),
        ("MATT", "Okay, you cast Fireball."),
        *[FILLER] * REPEAT_UNITS,
        ("MARISHA", "Fireball."),
        ("MARISHA", "I cast Fireball again."),
    )
    records = SpellCastRules()(units, context)
    assert [(r["spell"], r["caster"], r["source_refs"][0]["start_unit_id"]) for r in records] == [
        ("Fireball", "Keyleth", "t00000"),
        ("Fireball", None, "t00034"),
        ("Fireball", "Keyleth", "t00035"),
    ]
    near = shown(
        ("MARISHA", "I'm gonna cast Fireball."),
        ("MATT", "What level?"),
        ("MARISHA", "Third level Fireball."),
    )
    assert [r["source_refs"][0]["start_unit_id"] for r in SpellCastRules()(near, context)] == [
        "t00000",
        "t00002",
    ]


def test_without_a_party_the_first_person_caster_is_the_speaker_as_written() -> None:
    units = shown(("LAURA", "I cast Mending on the fountain."), ("MATT", "You cast Mending."))
    records = SpellCastRules()(units, RulesContext())
    assert [(r["spell"], r["caster"]) for r in records] == [("Mending", "LAURA"), ("Mending", None)]
    # a party that does not list the speaker: no caster (the game master voicing an NPC)
    party = RulesContext(party={"SAM": "Scanlan Shorthalt"})
    assert [r["caster"] for r in SpellCastRules()(units, party)] == [None, None]


def test_the_speaker_as_caster_passes_normalizations_support_check(tmp_path: Path) -> None:
    """Without a glossary, the whole run publishes the speaker as the caster of a first
    person cast: the support check accepts the unit's speaker saying ``I``."""
    transcript = tmp_path / "session.txt"
    transcript.write_text(
        "LAURA: I cast Mending on the fountain.\n\nMATT: The crack seals itself.\n\n"
        "MATT: I cast Fireball at them, he says.\n",
        encoding="utf-8",
    )
    config = tmp_path / "streamer.yaml"
    lanes = [{"id": "spells", "artifact_kind": "dnd/spell-casts"}]
    config.write_text(
        yaml.safe_dump({"pipeline": {"lanes": lanes, "extraction": {"engine": "rules"}}}),
        encoding="utf-8",
    )
    api.run(config, transcript, "text", tmp_path / "out", warn=lambda _: None)
    lane = json.loads((tmp_path / "out" / "lanes" / "spells.json").read_text(encoding="utf-8"))
    assert [(r["spell"], r["caster"]) for r in lane["records"]] == [
        ("Mending", "LAURA"),
        ("Fireball", "MATT"),
    ]

"""The session's named NPCs and places, told apart from the survey's counts (``NameSurvey``).

Every rule reads the whole session's counts of a name (``proper_nouns``), never one unit:

1. *Groups*: a one-word name joins the one longer name whose first or last word it is
   ("Nostoc" -> "Nostoc Greyspine" when the session says both); a word of several longer
   names stays on its own. A group's name is its longest name (the fullest); its counts
   are its names' counts summed.
2. *Not a name of the world*: a group never said in the middle of a sentence; a word the
   session says in lower case about as often ("Well", "Bolt"); a word of a speaker's label
   ("Matt", "Marisha Ray"); an SRD spell, creature or item ("Fireball", "Goblin"); a
   language or demonym ("Dwarvish", "Draconic"); a plural said after "the" (a family or a
   guild: "the Carvers").
3. *The party*: the glossary's ``party`` and their aliases where given; without one, a
   name the game master says to someone at least twice ("Grog, what do you do?").
4. *Person or place*: person cues (a title before it, "named", "thank", a speech or gesture
   verb after it, "he"/"she" after it, a player saying it to someone) against place cues
   ("in", "into", "from", "towards", "through"... before it; a place word in the name:
   "City", "Tavern", "Manor"). A place word or more place than person cues makes a place;
   more person cues an NPC; a name said after "the" at least half the time with no place
   word is neither (a faction, an item, a title). A tie is neither.
5. *Said enough*: twice, or once after "named" or "called".

The glossary's names and aliases come first: a mined name whose key the glossary lists
takes the glossary's name, and a party character's is never an NPC.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from streamer.domain.dnd.proper_nouns import OPENERS, TITLES, NameCounts, NameSurvey
from streamer.domain.dnd.spell_catalog import srd_spells
from streamer.framework.names import name_key

PERSON_BEFORE = frozenset(
    "named lord lady sir dame captain king queen prince princess master mister mr mrs ms "
    "miss madam baron baroness duke duchess count countess general commander sheriff "
    "brother sister father mother uncle aunt cousin chief elder meet met ask asks asked "
    "tell tells told thank thanks hey hi hello dear greet greets".split()
)
PERSON_AFTER = frozenset(
    "says said asks asked replies replied nods nodded smiles smiled looks looked turns "
    "turned walks walked shrugs laughs laughed grins sighs glances responds continues "
    "shakes pauses steps leans who he she himself herself tells told speaks whispers "
    "shouts yells goes exclaims answers stands sits reaches hands pulls".split()
)
PLACE_BEFORE = frozenset(
    "in into inside from toward towards through across outside within throughout "
    "reach reached visit visited leave left arrive near".split()
)
PLACE_AFTER = frozenset("tavern inn city town where proper district keep".split())
# "the" before a name of several words is half a place cue ("the Leaky Tap"; "the Clasp",
# one word, is more often a faction); "to" and "at" are no cue ("talk to Cloen").
PLACE_WORDS = frozenset(
    "City Town Village Keep Castle Tower Temple Hall Halls Inn Tavern Street Road District "
    "Mountains Mountain Forest Wood Woods River Sea Ocean Isle Isles Island Islands Bay Lake "
    "Pits Manor Gate Gates Market Square Palace Plains Hills Vale Valley Peak Peaks Cliffs "
    "Coast Harbor Harbour Port Falls Marsh Swamp Desert Wastes Empire Kingdom Shop Emporium "
    "Spire Bridge Alley Row Lane Quarter Ward Academy Library Arena Mines Mine Caverns Cave "
    "Caves Fortress Citadel Sanctum Abode Pillow Barrow Canyon Glade Grove Reach Take "
    "Marketplace Docks Chapel Cathedral Shrine Archive Archives Gorge Trove Sprawl Terrace "
    "Nook Estate Estates Camp Outpost Hold Crossing Pass Hollow Ridge Fields".split()
)
LANGUAGES = frozenset(
    "Common Elvish Dwarvish Draconic Infernal Abyssal Celestial Sylvan Undercommon Giant "
    "Gnomish Goblin Halfling Orc Primordial Druidic Zemnian Elven Dwarven".split()
)
# Capitalized words of the real world and of oaths: days, months, "Jesus", "God".
NOT_NAMES = frozenset(
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April "
    "May June July August September October November December God Gods Jesus Christ Lord "
    "Mama Papa Mom Dad Gentlemen Ladies Sir Madam Mister Miss Dungeon Dungeons Dragons "
    "Twitch Internet Youtube YouTube Patreon Discord Critical Role Lawful Chaotic Neutral "
    "Good Evil Cant Okay Ok Yeah Yes Yep Nope Oh Hey Hi Hello Well Wow Sure Alright Right "
    "Please Thanks Sorry Uh Um Hmm Huh Whoa Woo Dude Guys Man Cool Nice Great Awesome Damn "
    "Shit Fuck Goddamn Holy Bye Goodbye Cheers".split()
) | frozenset(
    # The game's own words: abilities, skills, class and race features
    "Strength Dexterity Constitution Intelligence Wisdom Charisma Perception Investigation "
    "Insight Stealth Athletics Acrobatics Persuasion Deception Intimidation Arcana History "
    "Religion Survival Medicine Nature Performance Initiative Advantage Disadvantage Rage "
    "Evasion Metamagic Ki Inspiration".split()
) | {
    "Wild Shape", "Bardic Inspiration", "Cutting Words", "Divine Smite", "Sneak Attack",
    "Action Surge", "Channel Divinity", "Channel Divinities", "Hexblade's Curse",
    "Relentless Endurance", "Stunning Strike", "Flurry of Blows", "Second Wind",
    "Lay on Hands", "Turn Undead", "Uncanny Dodge", "Cunning Action", "Reckless Attack",
    "Patient Defense", "Deflect Missiles", "Divine Sense", "Favored Enemy", "Arcane Recovery",
    "Font of Magic", "Sorcery Points", "Twinned Spell", "Quickened Spell", "Colossus Slayer",
    "Great Weapon Master", "Sharpshooter", "Primal Fury", "Armor Class", "Hit Points",
    "Dungeon Master", "Game Master", "Saving Throw", "Death Saves", "Dungeons and Dragons",
}
SAID_TO_PLAYERS = 2  # the game master says a party name to someone at least this often
ADDRESSERS = 3  # or this many speakers do
_LANGUAGE_ENDINGS = ("ish", "ic", "ese")


@functools.cache
def _catalog_keys() -> frozenset[str]:
    """Name keys of the SRD's creatures and items (and their plurals), and its spells."""
    text = importlib.resources.files("streamer.domain.dnd").joinpath("data/srd-world-names.json")
    lists = json.loads(text.read_text(encoding="utf-8"))
    keys: set[str] = set()
    for name in [*lists["creatures"], *lists["items"]]:
        key = name_key(name)
        keys.update((key, key + "s", key + "es"))
        if name in lists["creatures"]:  # "Goblin Boss" -> "goblin boss", and "boss" alone no
            keys.add(name_key(name.split()[0]) + "s")
    return frozenset(keys)


def _place_word(forms: Iterable[str]) -> bool:
    """A place word after a name's first word ("Leaky Tap Tavern", "Greyspine Manor")."""
    return any(word in PLACE_WORDS for form in forms for word in form.split()[1:])


def _known_elsewhere(name: str) -> bool:
    key = name_key(name)
    return key in _catalog_keys() or srd_spells().known(name) is not None


@dataclass
class _Group:
    name: str
    forms: list[str]
    counts: NameCounts = field(default_factory=NameCounts)


def openings_split(survey: NameSurvey) -> dict[str, NameCounts]:
    """The survey's names, where a longer name only ever said opening a sentence, whose
    first word the session says in lower case ("Eventually Devana"), or a title, is its
    other words, said in the middle of the sentence after that word."""
    names: dict[str, NameCounts] = {}
    for name in sorted(survey.names):
        counts = survey.names[name]
        words = name.split()
        first = words[0]
        while len(words) > 1 and (
            first in TITLES or first.lower() in OPENERS or _opener(first, counts, survey)
        ):
            opened = NameCounts()
            _add(opened, counts)
            opened.mid_sentence = counts.said
            opened.before[first.lower()] += counts.said - counts.mid_sentence
            counts, words = opened, words[1:]
            first = words[0]
        _add(names.setdefault(" ".join(words), NameCounts()), counts)
    return names


def _opener(word: str, counts: NameCounts, survey: NameSurvey) -> bool:
    """A common word opening a sentence before a name: the session says it in lower case,
    and the longer name never in the middle of a sentence (or it is a contraction)."""
    common = survey.lower[word.lower()] > 0
    return common and (counts.mid_sentence == 0 or "'" in word)


def _groups(names: Mapping[str, NameCounts], gm: str) -> list[_Group]:
    """Rule 1: one-word names joined to the one longer name holding them, unless the word
    alone is told another kind than the longer name alone."""
    longer = sorted((name for name in names if " " in name), key=lambda n: (-len(n), n))
    holders: dict[str, list[str]] = {}
    for name in longer:
        words = name.split()
        for word in {words[0], words[-1]}:
            holders.setdefault(word, []).append(name)
    groups = {name: _Group(name, [name]) for name in names if " " in name}
    for name in sorted(names):
        if " " in name:
            continue
        holding = holders.get(name, [])
        own = _kind(names[name], [name], gm)
        if len(holding) == 1 and own in (None, _kind(names[holding[0]], holding, gm) or "npc"):
            groups[holding[0]].forms.append(name)
        else:
            groups[name] = _Group(name, [name])
    for group in groups.values():
        for form in group.forms:
            _add(group.counts, names[form])
    return [groups[name] for name in sorted(groups)]


def _add(total: NameCounts, counts: NameCounts) -> None:
    total.said += counts.said
    total.mid_sentence += counts.mid_sentence
    total.speakers.update(counts.speakers)
    total.before.update(counts.before)
    total.after.update(counts.after)
    total.addressed.update(counts.addressed)
    total.out_of_game += counts.out_of_game


@dataclass(frozen=True)
class WorldNames:
    """The session's mined NPCs and places: each form said -> the name of its record."""

    npcs: Mapping[str, str]
    places: Mapping[str, str]
    short: frozenset[str] = frozenset()  # the forms that are not their record's name


def game_master(survey: NameSurvey, party: Iterable[str]) -> str:
    """The speaker of the most units among those the party does not list."""
    players = {name_key(speaker) for speaker in party}
    speaking = [(-n, who) for who, n in survey.speakers.items() if name_key(who) not in players]
    return min(speaking)[1] if speaking else ""


def classify(
    survey: NameSurvey, party: Mapping[str, str], glossary: Mapping[str, str]
) -> WorldNames:
    """Rules 1 to 5 over the whole session's counts."""
    gm = game_master(survey, party)
    labels = {name_key(word) for who in survey.speakers for word in who.split()}
    party_keys = {name_key(character) for character in party.values()}
    party_keys |= {key for key, name in glossary.items() if name_key(name) in party_keys}
    npcs: dict[str, str] = {}
    places: dict[str, str] = {}
    for group in _groups(openings_split(survey), gm):
        keys = {name_key(form) for form in group.forms}
        if keys & party_keys or (not party and _party_word(group.counts, gm)):
            continue
        if not _worldly(group, survey, labels):
            continue
        common = any(survey.lower[word.lower()] for word in group.name.split())
        kind = _kind(group.counts, group.forms, gm, common)
        name = _canonical(group, glossary)
        target = npcs if kind == "npc" else places if kind == "place" else None
        if target is not None:
            target.update(dict.fromkeys(group.forms, name))
    short = {form for forms in (npcs, places) for form, name in forms.items() if form != name}
    return WorldNames(npcs, places, frozenset(short))


def _party_word(counts: NameCounts, gm: str) -> bool:
    """Without a glossary's party: a name the game master says to someone twice, or that
    three speakers say to someone ("Keyleth, ..." from three players)."""
    return counts.addressed[gm] >= SAID_TO_PLAYERS or len(+counts.addressed) >= ADDRESSERS


def _canonical(group: _Group, glossary: Mapping[str, str]) -> str:
    for form in [group.name, *group.forms]:
        known = glossary.get(name_key(form))
        if known is not None:
            return known
    return group.name


def _worldly(group: _Group, survey: NameSurvey, labels: set[str]) -> bool:
    """Rule 2 and rule 5: a name of the session's world, said enough."""
    counts = group.counts
    if counts.mid_sentence == 0 or counts.out_of_game * 2 >= counts.said:
        return False
    if counts.said < 2 and not (
        counts.before["named"] or counts.before["called"] or _place_word(group.forms)
    ):
        return False
    for form in group.forms:
        words = form.split()
        if {name_key(word) for word in words} & labels or _known_elsewhere(form):
            return False
        if len(words) == 1 and (form.lower().endswith(_LANGUAGE_ENDINGS) or form in LANGUAGES):
            return False
        if len(words[0]) == 1 or form in TITLES or form in NOT_NAMES:
            return False
    if all(survey.lower[word.lower()] * 2 >= counts.said for word in group.name.split()):
        return False
    return not (group.name.endswith("s") and counts.before["the"] * 2 >= counts.said)


def _kind(counts: NameCounts, forms: list[str], gm: str, common: bool = True) -> str | None:
    """Rule 4: ``npc``, ``place`` or ``None``; ``common``: a word of the name is said in
    lower case too ("Stunning Strike"), so it is no first and last name."""
    if _place_word(forms):
        return "place"
    person = sum(n for word, n in counts.before.items() if word in PERSON_BEFORE)
    person += sum(n for word, n in counts.after.items() if word in PERSON_AFTER)
    person += sum(n for who, n in counts.addressed.items() if who != gm)
    place = sum(n for word, n in counts.before.items() if word in PLACE_BEFORE)
    place += sum(n for word, n in counts.after.items() if word in PLACE_AFTER)
    several = any(" " in form or "-" in form for form in forms)
    if several:
        place += counts.before["the"] / 2
        person += counts.before["the"] == 0 and not common  # a first and a last name
    if place > person:
        return "place"
    if person > place:
        return "npc"
    return None

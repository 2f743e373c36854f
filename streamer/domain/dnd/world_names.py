"""The session's named NPCs and places, told apart from the survey's counts (``NameSurvey``).

Every rule reads the whole session's counts of a name (``proper_nouns``), never one unit,
in this order (``docs/extraction.md``, "The proper-noun miner", numbers them so):
openings (``openings_split``), groups (``_groups``: "Nostoc" joins "Nostoc Greyspine"),
not of the world (``_worldly``: lower-case words, speaker labels, SRD spells, creatures and
items, languages, game words, plurals after "the", out-of-game talk), the party, person or
place (``_kind``: cues before and after a name, place words, deities invoked), said enough.
The glossary's names and aliases come first: a mined name whose key the glossary lists
takes the glossary's name, and a party character's is never a record.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from streamer.domain.dnd.name_cues import (
    DEITY_AFTER,
    DEITY_BEFORE,
    DEITY_OF,
    DIRECTIONS,
    FAMILY_AFTER,
    GAME_TERMS,
    LANGUAGES,
    NOT_NAMES,
    PARTY_GROUPS,
    PERSON_AFTER,
    PERSON_BEFORE,
    PLACE_AFTER,
    PLACE_BEFORE,
    PLACE_OF,
    PLACE_TWO,
    POSSESSIVES,
)
from streamer.domain.dnd.name_enough import after_title, place_word, said_enough, told
from streamer.domain.dnd.name_kinds import other_kind
from streamer.domain.dnd.party_inference import party_names
from streamer.domain.dnd.proper_nouns import OPENERS, TITLES, NameCounts, NameSurvey
from streamer.domain.dnd.spell_catalog import srd_spells
from streamer.framework.names import name_key

_LANGUAGE_ENDINGS = ("ish", "ic", "ese")
OPENED_REST = 4
PLAYERS_PLACE = 2  # place cues of a name the players alone say
WORLD_TITLE = 2  # a word said after "the" this often, alone, is a title before a name
_GROUP_FIRSTS = frozenset(group.split()[0] for group in PARTY_GROUPS)


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


def _known_elsewhere(name: str) -> bool:
    """An SRD creature, item or spell, or a spell said as a verb ("Hunter's Marked")."""
    key = name_key(name)
    spells = srd_spells()
    return key in _catalog_keys() or any(
        spells.known(form) is not None for form in (name, name.removesuffix("ed"))
    )


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
    titles = _world_titles(survey)
    for name in sorted(survey.names):
        counts = survey.names[name]
        words = name.split()
        first = words[0]
        while len(words) > 1 and (
            first in TITLES
            or first.lower() in OPENERS
            or _opener(words, counts, survey)
            or srd_spells().known(first) is not None  # "I Polymorph Trinket"
        ):
            opened = NameCounts()
            _add(opened, counts)
            opened.mid_sentence = counts.said
            opened.before[first.lower()] += counts.said - counts.mid_sentence
            counts, words = opened, words[1:]
            first = words[0]
        counts, words = _after_title(counts, words)
        if len(words) > 1 and words[0] in titles:
            counts, words = _titled(counts, words, 0)
            counts.world_titled = counts.said
        _add(names.setdefault(" ".join(words), NameCounts()), counts)
    return names


def _world_titles(survey: NameSurvey) -> frozenset[str]:
    """The world's own titles: one word said alone at least twice, at least half the time
    after "the", that begins longer names with no place word and no "of" ("the Wardenhelm"
    and "Wardenhelm Poppin Drokrusher", C2E025; "the Ironkeeper" and "Ironkeeper Gradim
    Greyspine", C1E001; not "the Shademirk" of "Shademirk Bog", C1E060)."""
    longer: dict[str, list[list[str]]] = {}
    for name in survey.names:
        words = name.split()
        if len(words) > 1:
            longer.setdefault(words[0], []).append(words)
    return frozenset(
        word
        for word, names in longer.items()
        if (alone := survey.names.get(word)) is not None
        and alone.before["the"] >= WORLD_TITLE
        and alone.before["the"] * 2 >= alone.said
        and not any("of" in words or place_word([" ".join(words)]) for words in names)
    )


def _after_title(counts: NameCounts, words: list[str]) -> tuple[NameCounts, list[str]]:
    """A title inside a name ("the Carnival Master Gustav Fletching"): the name is the
    words after it, said after the title."""
    inside = [
        at for at, word in enumerate(words[1:-1], 1) if word in TITLES and "of" not in words[:at]
    ]  # not "the Writ of Lawmaster Intent"
    if not inside:
        return counts, words
    return _titled(counts, words, inside[-1])


def _titled(counts: NameCounts, words: list[str], at: int) -> tuple[NameCounts, list[str]]:
    """The name after its title ``words[at]``: said after the title each time."""
    titled = NameCounts()
    _add(titled, counts)
    titled.mid_sentence = counts.said
    titled.before = Counter({words[at].lower(): counts.said})
    titled.before_two = Counter()
    return titled, words[at + 1 :]


def _opener(words: list[str], counts: NameCounts, survey: NameSurvey) -> bool:
    """A common word opening a sentence before a name: the session says it in lower case,
    and the longer name never in the middle of a sentence (or it is a contraction); or a
    longer name never said in the middle of a sentence whose other words are, twice as
    often as it is said ("Signed Algar." once, "Algar" 32 times, C2E035)."""
    word = words[0]
    if counts.said == 1 and counts.mid_sentence == 0:
        rest = survey.names.get(" ".join(words[1:]))
        if rest is not None and rest.mid_sentence >= OPENED_REST:
            return True
    common = survey.lower[word.lower()] > 0
    return common and (counts.mid_sentence == 0 or "'" in word)


def _groups(
    names: Mapping[str, NameCounts], gm: str, lower: Mapping[str, int] | None = None
) -> list[_Group]:
    """Rule 1: one-word names joined to the one longer name holding them, unless the word
    alone is told another kind than the longer name alone, or is a word the session says
    in lower case at least as often (``lower``: "My" never joins "My Little Pony")."""
    lower = lower or {}
    longer = sorted((name for name in names if " " in name), key=lambda n: (-len(n), n))
    holders: dict[str, list[str]] = {}
    for name in longer:
        words = name.split()
        if "of" in words:  # "Third House of Whitestone" holds no "Whitestone"
            continue
        for word in {words[0], words[-1]}:
            holders.setdefault(word, []).append(name)
    groups = {name: _Group(name, [name]) for name in names if " " in name}
    for name in sorted(names):
        if " " in name:
            continue
        own = _kind(names[name], [name], gm)
        if lower.get(name.lower(), 0) >= names[name].said:
            groups[name] = _Group(name, [name])
            continue
        holding = [
            longer
            for longer in holders.get(name, [])
            if own in (None, _kind(names[longer], [longer], gm) or "npc")
        ]
        if len(holding) > 1:  # "Cleff Tinkertop", not "Tinkertop Boltblaster" said once
            holding = [longer for longer in holding if names[longer].said >= 2]
        if len(holding) == 1:
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
    total.before_two.update(counts.before_two)
    total.addressed.update(counts.addressed)
    total.hailed.update(counts.hailed)
    total.answered.update(counts.answered)
    total.calls.update(counts.calls)
    total.out_of_game += counts.out_of_game
    total.alone.update(counts.alone)
    total.joined.update(counts.joined)
    total.world_titled += counts.world_titled
    total.turns += counts.turns
    if total.first[0] < 0 or 0 <= counts.first[0] < total.first[0]:
        total.first = counts.first


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
    speakers = [*survey.speakers, *party]  # the players, even those absent this session
    labels = {name_key(word) for who in speakers for word in who.split()}
    party_keys = {name_key(character) for character in party.values()}
    party_keys |= {key for key, name in glossary.items() if name_key(name) in party_keys}
    npcs: dict[str, str] = {}
    places: dict[str, str] = {}
    unsure: list[_Group] = []  # of the world, neither a person nor a place by its cues
    groups = _groups(openings_split(survey), gm, survey.lower)
    owned = party_names({g.name: g.counts for g in groups}, gm) if not party else frozenset()
    titles = _world_titles(survey)
    for group in groups:
        keys = {name_key(form) for form in group.forms}
        if keys & party_keys or group.name in owned or group.name in titles:
            continue
        if not _worldly(group, survey, labels, gm):
            continue
        common = any(survey.lower[word.lower()] for word in group.name.split())
        kind = _kind(group.counts, group.forms, gm, common)
        if kind == "npc" and (_family(group.name, survey) or _role(group)):
            continue
        name = _canonical(group, glossary)
        target = npcs if kind == "npc" else places if kind == "place" else None
        if target is not None:
            target.update(dict.fromkeys(group.forms, name))
        elif not _cues(group.counts, group.forms, common, gm)[1]:
            unsure.append(group)
    for group in unsure:  # "Austin and Gail look past": joined to a person, a person
        if any(other in npcs for other in group.counts.joined):
            npcs.update(dict.fromkeys(group.forms, _canonical(group, glossary)))
    npcs, places = _demonyms_out(npcs, places)
    short = {form for forms in (npcs, places) for form, name in forms.items() if form != name}
    return WorldNames(npcs, places, frozenset(short))


def _demonyms_out(
    npcs: dict[str, str], places: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Without the names that are a place's demonym: the place's name and "n", "an", "ian"
    or "ean" ("Draconian" of "Draconia", C1E001; "Emonian" of "Emon")."""
    stems = set(places.values())
    demonyms = {place + end for place in stems for end in ("n", "an", "ian", "ean")}
    return (
        {form: name for form, name in npcs.items() if name not in demonyms},
        {form: name for form, name in places.items() if name not in demonyms},
    )


def _canonical(group: _Group, glossary: Mapping[str, str]) -> str:
    for form in [group.name, *group.forms]:
        known = glossary.get(name_key(form))
        if known is not None:
            return known
    return group.name


def _worldly(group: _Group, survey: NameSurvey, labels: set[str], gm: str) -> bool:
    """Rule 2 and rule 5: a name of the session's world, said enough."""
    counts = group.counts
    if (
        counts.mid_sentence == 0 and not told(group.name, counts, gm)
    ) or counts.out_of_game * 2 >= counts.said:
        return False
    if not counts.speakers[gm] and not _players_place(group, gm):
        return False  # the players' talk: out of the game, or a joke ("so Baldur's Gate")
    if not said_enough(group.name, group.forms, counts, survey, gm):
        return False
    for form in group.forms:
        words = form.split()
        if {name_key(word) for word in words} & labels or _known_elsewhere(form):
            return False
        if len(words) == 1 and (form.lower().endswith(_LANGUAGE_ENDINGS) or form in LANGUAGES):
            return False
        if len(words[0]) == 1 or form in TITLES or form in NOT_NAMES or form in GAME_TERMS:
            return False
        if form in PARTY_GROUPS or (len(words) > 1 and words[0] in _GROUP_FIRSTS):
            return False  # the party's group, or a joke on it ("the Mighty Seven")
    if other_kind(group.name, counts):  # a group, a spell or a feature, the real world
        return False
    owned = sum(n for word, n in counts.before.items() if word in POSSESSIVES)
    if owned * 2 >= counts.said:  # "my Transmuter's Stone": an item or a feature
        return False
    if all(survey.lower[word.lower()] * 2 >= counts.said for word in group.name.split()):
        return False
    plural = " " not in group.name and group.name.endswith("s")  # "the Carvers", a guild
    return not (plural and counts.before["the"] * 2 >= counts.said)


def _players_place(group: _Group, gm: str) -> bool:
    """A place word in the name, said after "the" in the middle of a sentence ("we were at
    the Wayfarer's Cove", C2E035; not "it's so Baldur's Gate", "The Soul Train Academy."),
    or place cues at least twice and no person cue ("live in Syngorn", "the capital of
    Syngorn", C1E001), or a person's title twice and no place cue ("Lady Delilah")."""
    after_the = any(n and two.endswith(" the") for two, n in group.counts.before_two.items())
    if after_the and place_word(group.forms):
        return True
    person, place, _ = _cues(group.counts, group.forms, True, gm)
    titled = after_title(group.counts)
    return (place >= PLAYERS_PLACE and not person) or (titled >= PLAYERS_PLACE and not place)


def _role(group: _Group) -> bool:
    """Rule 4: one word said after "the" at least half the time ("the Herald") is a role
    or a thing, no personal name."""
    counts = group.counts
    return (
        len(group.forms) == 1 and " " not in group.name and counts.before["the"] * 2 >= counts.said
    )


def _family(name: str, survey: NameSurvey) -> bool:
    """A family name: its plural said after "the" at least half the time ("the
    Briarwoods"): "Lady Briarwood" is one of several."""
    plural = survey.names.get(name + "s")
    return plural is not None and plural.before["the"] * 2 >= plural.said


def _kind(counts: NameCounts, forms: list[str], gm: str, common: bool = True) -> str | None:
    """Rule 4: ``npc``, ``place`` or ``None``; ``common``: a word of the name is said in
    lower case too ("Stunning Strike"), so it is no first and last name."""
    if place_word(forms) or any(" " in form and form.split()[0] in DIRECTIONS for form in forms):
        return "place"  # "Greyspine Manor", "Western Wynandir"
    person, place, deity = _cues(counts, forms, common, gm)
    if place > person:
        return "place"
    if person > place and deity * 2 < counts.said:
        return "npc"
    return None


def _cues(counts: NameCounts, forms: list[str], common: bool, gm: str) -> tuple[float, float, int]:
    """A name's person, place and deity cues (rule 4)."""
    deity = sum(n for word, n in counts.before.items() if word in DEITY_BEFORE)
    deity += sum(n for word, n in counts.after.items() if word in DEITY_AFTER)
    person: float = sum(n for word, n in counts.before.items() if word in PERSON_BEFORE)
    person += after_title(counts)
    person += sum(n for word, n in counts.after.items() if word in PERSON_AFTER)
    # said to someone; by the game master, in an NPC's voice, opening a sentence or in a
    # unit that quotes: "Cloen, wake up!", not "His own tinkered construction, Bad News."
    person += sum(n for who, n in counts.addressed.items() if who != gm) + counts.hailed[gm]
    person += told(forms[0], counts, gm)  # '"Tremaine."', an NPC's own name or one called
    place: float = sum(n for word, n in counts.before.items() if word in PLACE_BEFORE)
    place += sum(n for word, n in counts.after.items() if word in PLACE_AFTER)
    for two, n in counts.before_two.items():  # "city of Emon", "into the Underdark"
        first, _, second = two.partition(" ")
        place += n * (
            (second == "of" and first in PLACE_OF)
            or (second == "the" and first in PLACE_BEFORE)
            or two in PLACE_TWO
        )
        deity += n * (second == "of" and first in DEITY_OF)
    if any(" " in form or "-" in form for form in forms):  # "the Leaky Tap", a first and last
        place += max(0, counts.before["the"] - sum(counts.after[w] for w in FAMILY_AFTER)) / 2
        person += counts.before["the"] == 0 and not common  # name; not "the Vedmeyer estate"
    return person, place, deity

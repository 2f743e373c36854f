"""The casts said with a verb: a casting verb (``cast``, ``casts``, ``casting``) and a spell
name after a few fillers (``casting_verbs``); another verb (``use``, ``throw``, ``send``,
``fire``, ``release``, ``do``) before a spoken name that is not an ordinary word
(``other_verbs``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from streamer.domain.dnd.spell_rules.caster import caster
from streamer.domain.dnd.spell_rules.leave import Asked, asked
from streamer.domain.dnd.spell_rules.names import NameForms, SpellMatcher
from streamer.domain.dnd.spell_rules.text import (
    CLAUSE_BREAK,
    MAX_FILLERS,
    SPELL_LOOKAHEAD,
    TARGETS,
    WORD,
    Found,
    Utterance,
    clause_before,
    is_filler,
    words_of,
)
from streamer.domain.dnd.spell_rules.unlisted import unlisted

# The casting verbs (whole words, any case of their ASCII letters): the prefilter reads them.
# A cast again is a cast ("I'm going to re-cast Mage Hand and pick up the bucket").
VERBS = (
    "cast", "casts", "casting",
    "recast", "recasts", "recasting", "re-cast", "re-casts", "re-casting",
)  # fmt: skip
_VERB = re.compile(
    r"(?<![\w'-])("
    + "|".join(
        "".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in verb)
        for verb in sorted(VERBS, key=len, reverse=True)
    )
    + r")(?![\w']|-(?!-))"  # "cast--" ends the verb: an aside or a pause follows
)
# the casting noun: "the cast of", "your whole casting"
_NOUN_BEFORE = frozenset({"the", "a", "your", "whole", "entire"})
# Summoning makes what it names: a possessive before a spell kept up is no spell already up
# ("You summon your Unseen Servant.")
_SUMMONS = frozenset(["summon", "summons", "summoning", "conjure", "conjures", "conjuring"])
# The other verbs players and game masters cast with ("I'll throw a Healing Word to him",
# "send a Fire Bolt at it", "I'm going to use Vicious Mockery", "I'm blasting a Sunbeam",
# "I'll send a firebolt at it"), and their present participles: only
# before a name that is not an ordinary word, and never before a possessive ("send my
# spiritual weapon" moves a spell already up).
OTHER_VERBS = frozenset(
    [
        "use",
        "uses",
        "throw",
        "throws",
        "send",
        "sends",
        "fire",
        "fires",
        "release",
        "releases",
        "do",
        "drop",
        "drops",
        "hit",
        "hits",
        "shoot",
        "shoots",
        "unleash",
        "unleashes",
        *["using", "throwing", "sending", "firing", "releasing", "blasting"],
        *["shooting", "unleashing"],
        *_SUMMONS,
    ]
)
# "giving Identify a whirl": the name between, at most six words (the prefilter reads
# ``WHIRL``)
WHIRL = "whirl"
_GIVEN_A_TRY = re.compile(
    rf"(?<![\w'])(give|gives|giving)\s+((?:[\w'-]+\s+){{1,6}}?)a\s+{WHIRL}(?![\w'])",
    re.IGNORECASE,
)
# ``drop`` ends a spell ("I drop Polymorph") unless a count or an article follows it ("I
# drop a Fireball on them"); ``hit`` casts only with ``with`` ("I hit him with a Guiding
# Bolt"), at most a few words after it in its clause
_DROPS = frozenset(["drop", "drops"])
_COUNTED = words_of("a an another one two three four five")
_HITS = frozenset(["hit", "hits"])
_WITH_AFTER = 6  # how many words (the target) may stand between ``hit`` and ``with``
# ``shoot`` casts only with a target after the name ("I'm going to shoot a Scorching Ray
# at the big guy"): "I'm going to shoot a Fireball. Right in front of me..." was taken back
_AIMED = frozenset(["shoot", "shoots", "shooting"])
_POSSESSIVES = frozenset(["my", "his", "her", "their", "our", "your", "its"])
# The spells a possessive before the name speaks of once they are up, moved or used again
# ("I send my Spiritual Weapon down there", "I move my Flaming Sphere"): after a
# possessive, any other name is a cast ("I send my Magic Missile out")
_KEPT_UP = frozenset(
    [
        "Spiritual Weapon", "Flaming Sphere", "Mage Hand", "Unseen Servant", "Find Familiar",
        "Find Steed", "Arcane Hand", "Moonbeam", "Call Lightning", "Dancing Lights",
        "Witch Bolt", "Heat Metal", "Hunter's Mark", "Spirit Guardians", "Animate Objects",
        "Animate Dead", "Wall of Fire", "Wall of Stone", "Wall of Force", "Wall of Ice",
        "Wall of Thorns", "Produce Flame", "Faithful Hound", "Arcane Eye", "Cloudkill",
        "Insect Plague", "Guardian of Faith", "Conjure Animals", "Vampiric Touch",
        "Tiny Hut", "Blade Barrier", "Fog Cloud", "Stinking Cloud", "Silent Image",
        "Minor Illusion", "Hypnotic Pattern", "Spike Growth", "Sleet Storm", "Whirlwind",
    ]
)  # fmt: skip
# ... and a definite article speaks of one already up too ("I will use the Mage Hand to
# deliver the tar")
_UP_ALREADY = _POSSESSIVES | {"the"}
_PARTICLES = frozenset(["out", "off", "forth"])
# An aside between dashes right after a casting verb ("cast-- fuck it-- Sanctuary"), of at
# most three words and no sentence break
_ASIDE_WORDS = 3
_ASIDE = re.compile(rf"\s*--\s*(?:[\w',]+\s+){{0,{_ASIDE_WORDS - 1}}}[\w',]+\s*--")
# a name followed by one of these speaks of the spell, not of casting it
_NOT_AFTER = words_of("damage slot")


def casting_verbs(
    said: Utterance, matcher: SpellMatcher, characters: Mapping[str, str]
) -> list[Found]:
    """A casting verb, not a noun (``the cast of``), said as a statement or as leave asked
    and given, and a spell's name after it (``spell_after``)."""
    found: list[Found] = []
    text = said.text
    for verb in _VERB.finditer(text):
        before = clause_before(text, verb.start())
        if before and before[-1] in _NOUN_BEFORE:
            continue
        how = asked(text, verb.start(), verb.end(), before, said.reply)
        if how is Asked.BLOCKED:
            continue
        spell = spell_after(text, verb.end(), matcher)
        if spell is None:
            continue
        third = verb.group(1).lower().endswith("casts")
        given = how is Asked.LEAVE_GIVEN
        who = said.speaker if given else caster(said, verb.start(), before, third, characters)
        found.append(Found(verb.start(), verb.end(), spell, who))
    return found


def spell_after(text: str, start: int, matcher: SpellMatcher) -> str | None:
    """The spell named after ``start`` in its clause, after at most ``MAX_FILLERS``
    fillers: a known one, else one the catalog does not hold (``unlisted``)."""
    tail = _past_aside(text[start : start + SPELL_LOOKAHEAD])
    stop = CLAUSE_BREAK.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words = WORD.findall(tail)
    unknown = None
    for skipped in range(min(MAX_FILLERS, len(words)) + 1):
        if skipped and not is_filler(words[skipped - 1]):
            break
        matched = matcher.match(words[skipped:])
        if matched is not None:
            return matched[0]
        unknown = unknown or unlisted(words[skipped:])
    return unknown


def _past_aside(tail: str) -> str:
    """The words after a verb, past an aside between dashes that opens them ("I'm going
    to cast-- fuck it-- Sanctuary"): at most ``_ASIDE_WORDS`` words in it."""
    aside = _ASIDE.match(tail)
    return tail if aside is None else tail[aside.end() :]


def other_verbs(said: Utterance, forms: NameForms, characters: Mapping[str, str]) -> list[Found]:
    """``use``, ``throw``, ``send``, ``fire``, ``release``, ``do`` before a name
    that is not an ordinary word, after at most a particle (``out``) and a few fillers but
    no possessive; not when ``damage`` or ``slot`` follows the name."""
    found: list[Found] = []
    text, lowered, word_at = said.text, said.lowered, said.word
    for index, word in enumerate(lowered):
        if word not in OTHER_VERBS:
            continue
        after = index + 1
        if word in _HITS:
            after = _with_after(lowered, after)
        elif word in _DROPS and (after >= len(lowered) or lowered[after] not in _COUNTED):
            continue
        at = _name_start(lowered, after, forms)
        if at is None:
            continue
        match = forms.at(lowered, at)
        if match is None:
            continue
        spell, end = match
        if end < len(lowered) and lowered[end] in _NOT_AFTER:
            continue
        if word in _AIMED and (end >= len(lowered) or lowered[end] not in TARGETS):
            continue
        up = spell in _KEPT_UP and word not in _SUMMONS
        if up and not _UP_ALREADY.isdisjoint(lowered[after:at]):
            continue
        if CLAUSE_BREAK.search(text, word_at(index).end(), word_at(at).start()):
            continue
        start = word_at(index).start()
        before = clause_before(text, start)
        how = asked(text, start, word_at(end - 1).end(), before, said.reply)
        if how is Asked.BLOCKED:
            continue
        third = word.endswith("s") and word != "does"
        given = how is Asked.LEAVE_GIVEN
        who = said.speaker if given else caster(said, start, before, third, characters)
        found.append(Found(start, word_at(end - 1).end(), spell, who))
    return found


def given_a_whirl(
    said: Utterance, matcher: SpellMatcher, characters: Mapping[str, str]
) -> list[Found]:
    """``give <spell> a whirl``: the words between are a spell's name after at most a
    few fillers, ordinary words too ("I'm hanging back and giving Identify a whirl on
    what's in my bag"); a statement, as for a verb."""
    found: list[Found] = []
    text = said.text
    for given in _GIVEN_A_TRY.finditer(text):
        words = WORD.findall(given.group(2))
        skipped = 0
        while skipped < min(MAX_FILLERS, len(words) - 1) and is_filler(words[skipped]):
            skipped += 1
        matched = matcher.match(words[skipped:])
        if matched is None or matched[1] != len(words) - skipped:
            continue
        before = clause_before(text, given.start())
        if asked(text, given.start(), given.end(), before, None) is not Asked.STATEMENT:
            continue
        third = given.group(1).lower() == "gives"
        who = caster(said, given.start(), before, third, characters)
        found.append(Found(given.start(), given.end(), matched[0], who))
    return found


def _with_after(lowered: list[str], at: int) -> int:
    """After ``hit``: the word after ``with`` when it follows within ``_WITH_AFTER``
    words, else the end (no name)."""
    for index in range(at, min(len(lowered), at + _WITH_AFTER + 1)):
        if lowered[index] == "with":
            return index + 1
    return len(lowered)


def _name_start(lowered: list[str], at: int, forms: NameForms) -> int | None:
    """Where a name may start after another verb: after at most a particle and
    ``MAX_FILLERS`` fillers or possessives (not a name's first word); ``None`` at the
    end."""
    if at < len(lowered) and lowered[at] in _PARTICLES:
        at += 1
    skipped = 0
    while (
        at < len(lowered)
        and skipped < MAX_FILLERS
        and (lowered[at] in _POSSESSIVES or is_filler(lowered[at]))
        and lowered[at] not in forms.firsts
    ):
        at += 1
        skipped += 1
    return None if at >= len(lowered) else at

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
    WORD,
    Found,
    Utterance,
    clause_before,
    is_filler,
    words_of,
)

# The casting verbs (whole words, any case of their ASCII letters): the prefilter reads them
VERBS = ("cast", "casts", "casting")
_VERB = re.compile(
    r"(?<![\w'-])("
    + "|".join(
        "".join(f"[{letter.upper()}{letter}]" for letter in verb)
        for verb in sorted(VERBS, key=len, reverse=True)
    )
    + r")(?![\w'-])"
)
# the casting noun: "the cast of", "your whole casting"
_NOUN_BEFORE = frozenset({"the", "a", "your", "whole", "entire"})
# The other verbs players and game masters cast with ("I'll throw a Healing Word to him",
# "send a Fire Bolt at it", "I'm going to use Vicious Mockery"): only before a name that is
# not an ordinary word, and never before a possessive ("send my spiritual weapon" moves a
# spell already up).
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
    ]
)
_POSSESSIVES = frozenset(["my", "his", "her", "their", "our", "your", "its"])
_PARTICLES = frozenset(["out", "off", "forth"])
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
        third = verb.group(1).lower() == "casts"
        given = how is Asked.LEAVE_GIVEN
        who = said.speaker if given else caster(said, verb.start(), before, third, characters)
        found.append(Found(verb.start(), verb.end(), spell, who))
    return found


def spell_after(text: str, start: int, matcher: SpellMatcher) -> str | None:
    """The spell named after ``start`` in its clause, after at most ``MAX_FILLERS``
    fillers."""
    tail = text[start : start + SPELL_LOOKAHEAD]
    stop = CLAUSE_BREAK.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words = WORD.findall(tail)
    for skipped in range(min(MAX_FILLERS, len(words)) + 1):
        if skipped and not is_filler(words[skipped - 1]):
            break
        matched = matcher.match(words[skipped:])
        if matched is not None:
            return matched[0]
    return None


def other_verbs(said: Utterance, forms: NameForms, characters: Mapping[str, str]) -> list[Found]:
    """``use``, ``throw``, ``send``, ``fire``, ``release``, ``do`` before a name
    that is not an ordinary word, after at most a particle (``out``) and a few fillers but
    no possessive; not when ``damage`` or ``slot`` follows the name."""
    found: list[Found] = []
    text, lowered, word_at = said.text, said.lowered, said.word
    for index, word in enumerate(lowered):
        if word not in OTHER_VERBS:
            continue
        at = _name_start(lowered, index + 1, forms)
        if at is None:
            continue
        match = forms.at(lowered, at)
        if match is None:
            continue
        spell, end = match
        if end < len(lowered) and lowered[end] in _NOT_AFTER:
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


def _name_start(lowered: list[str], at: int, forms: NameForms) -> int | None:
    """Where a name may start after another verb: after at most a particle and
    ``MAX_FILLERS`` fillers (not a name's first word); ``None`` at a possessive or the
    end."""
    if at < len(lowered) and lowered[at] in _PARTICLES:
        at += 1
    skipped = 0
    while (
        at < len(lowered)
        and skipped < MAX_FILLERS
        and lowered[at] not in _POSSESSIVES
        and is_filler(lowered[at])
        and lowered[at] not in forms.firsts
    ):
        at += 1
        skipped += 1
    if at >= len(lowered) or lowered[at] in _POSSESSIVES:
        return None
    return at

"""The built-in rules extractor of ``dnd/spell-casts`` (``engine: rules``): no model.

A candidate is a *casting statement* naming a known spell:

1. a casting verb, as a whole word: ``cast``, ``casts``, ``casting``;
2. followed, after at most a few filler words (``a``, ``the``, ``my``, ``another``, a spell
   level such as ``third-level`` or ``level 3``), by a spell name of the SRD catalog or one
   of its aliases (``SpellMatcher``: the longest name that matches, compared by the
   catalog's match key, so case, spacing and punctuation do not matter).

A statement is *not* a cast, and gives nothing, when its sentence is a question (it ends
with ``?``) or when the words before the verb in its clause hold a negation, a modal or a
condition (``can``, ``could``, ``should``, ``would``, ``might``, ``may``, ``don't``,
``not``, ``if``, ``when``, ...): "can I cast Bless?", "I won't cast Fireball in here",
"if you cast Shield". The casting noun (``the cast of``) is skipped too.

``caster``: the speaker's character when the statement is in the first person (``I cast``,
``I'm casting``, ``I'll cast``, ``I'm going to cast``, ...) and the glossary's ``party``
maps the unit's speaker; otherwise ``null``. The candidate cites the one unit it was found
in; the spell is written as the catalog spells it. Deterministic: the same chunk gives the
same candidates in the same order (by unit, then by position in the text).

Limits (docs/extraction.md): only the three verb forms are read ("I Fireball them" is
missed), a spell outside the catalog is missed, a cast narrated across two units is cited
by the unit holding the verb, and a statement of intent counts as a cast.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from streamer.framework.kinds.extraction import RulesContext, ShownUnit

VERSION = "dnd/spell-casts-rules@1"
LONGEST_NAME_WORDS = 6
MAX_FILLERS = 3
CLAUSE_WORDS = 8

_WORD = re.compile(r"[\w']+(?:-[\w']+)*")
_VERB = re.compile(r"(?<![\w'-])(cast|casts|casting)(?![\w'-])", re.IGNORECASE)
_CLAUSE_BREAK = re.compile('[.!?;:,"()\\[\\]]|\\s-\\s|\u2014|\u2013')


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_SENTENCE_END = re.compile(r"[.!?]")
_LEVEL = re.compile(r"\w+-level|level-\d")
_FILLERS = _words(
    "a an the my his her their our another one some this that it up again also then "
    "level lvl first second third fourth fifth sixth seventh eighth ninth 1st 2nd "
    "3rd 4th 5th 6th 7th 8th 9th 1 2 3 4 5 6 7 8 9"
)
_BLOCKERS = _words(
    "can can't cannot couldn't could should shouldn't would wouldn't might may must "
    "don't doesn't didn't won't not never no if when whenever unless until before "
    "after whether do does did able how why what"
)
_NOUN_BEFORE = frozenset({"the", "a", "your", "whole", "entire"})
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i'd"})
_OTHER_SUBJECTS = _words(
    "you he she they we it who you're he's she's they're we're it's you'll he'll "
    "she'll they'll we'll"
)


class SpellMatcher:
    """Which known spell a run of words names: ``match(words)`` is the canonical name and
    the number of words it took (the longest name that fits), or ``None``.

    ``names`` are (spoken form, canonical name) pairs: every catalog name with itself,
    and every alias with its SRD name. ``key`` is the catalog's match key."""

    def __init__(self, names: Iterable[tuple[str, str]], key: Callable[[str], str]) -> None:
        self._key = key
        self._by_key: dict[str, str] = {}
        longest = 1
        for spoken, canonical in names:
            self._by_key.setdefault(key(spoken), canonical)
            longest = max(longest, len(_WORD.findall(spoken)))
        self._longest = min(longest, LONGEST_NAME_WORDS)

    def match(self, words: Sequence[str]) -> tuple[str, int] | None:
        for size in range(min(self._longest, len(words)), 0, -1):
            name = self._by_key.get(self._key(" ".join(words[:size])))
            if name is not None:
                return name, size
        return None


@cache
def srd_matcher() -> SpellMatcher:
    """The matcher of the shipped SRD catalog and its aliases (``spell_catalog``)."""
    from streamer.domain.dnd.spell_catalog import ALIASES, match_key, srd_spells

    catalog = srd_spells()
    return SpellMatcher([*((name, name) for name in catalog.names), *ALIASES.items()], match_key)


class SpellCastRules:
    """The rules extractor of ``dnd/spell-casts`` (a ``RulesExtractor``)."""

    def __init__(self, matcher: Callable[[], SpellMatcher] = srd_matcher) -> None:
        self._matcher = matcher

    @property
    def version(self) -> str:
        return VERSION

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        matcher = self._matcher()
        records: list[dict[str, Any]] = []
        for unit in units:
            for spell, first_person in casts(unit.text, matcher):
                caster = context.character_of(unit.speaker) if first_person else None
                reference = {"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}
                records.append({"spell": spell, "caster": caster, "source_refs": [reference]})
        return records


def casts(text: str, matcher: SpellMatcher) -> list[tuple[str, bool]]:
    """The casting statements of one text, in order: (canonical spell, first person)."""
    found: list[tuple[str, bool]] = []
    text = text.translate(_APOSTROPHES)
    for verb in _VERB.finditer(text):
        before = _clause_before(text, verb.start())
        if before and before[-1] in _NOUN_BEFORE:
            continue
        if _BLOCKERS.intersection(before) or _is_question(text, verb.end()):
            continue
        spell = _spell_after(text, verb.end(), matcher)
        if spell is not None:
            found.append((spell, verb.group(1).lower() != "casts" and _first_person(before)))
    return found


def _clause_before(text: str, end: int) -> list[str]:
    """The last words before ``end`` in the same clause, lower-cased."""
    start = max(0, end - 80)
    head = text[start:end]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    if breaks:
        head = head[breaks[-1].end() :]
    return [word.lower() for word in _WORD.findall(head)][-CLAUSE_WORDS:]


def _is_question(text: str, start: int) -> bool:
    end = _SENTENCE_END.search(text, start)
    return end is not None and end.group() == "?"


def _spell_after(text: str, start: int, matcher: SpellMatcher) -> str | None:
    tail = text[start : start + 160]
    stop = _CLAUSE_BREAK.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words = _WORD.findall(tail)
    for skipped in range(min(MAX_FILLERS, len(words)) + 1):
        if skipped and not _is_filler(words[skipped - 1]):
            break
        matched = matcher.match(words[skipped:])
        if matched is not None:
            return matched[0]
    return None


def _is_filler(word: str) -> bool:
    lower = word.lower()
    return lower in _FILLERS or _LEVEL.fullmatch(lower) is not None


def _first_person(before: list[str]) -> bool:
    """Whether the clause's subject is ``I``: the last subject-like word before the verb."""
    for word in reversed(before):
        if word in _FIRST_PERSON:
            return True
        if word in _OTHER_SUBJECTS:
            return False
    return False

"""Who casts, by the person of the verb: ``I`` is the speaker's character (in the verb's
clause, or in its sentence when the clause names no subject), a third-person
verb's subject the party character named (``Scanlan casts``), ``you`` the party character
addressed before it in its sentence (``Keyleth, you cast``); otherwise nobody said."""

from __future__ import annotations

import re
from collections.abc import Mapping

from streamer.domain.dnd.spell_rules.text import (
    ADDRESS_LOOKBACK,
    ADVERBS,
    WORD,
    Utterance,
    sentence_before,
    words_of,
)

_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i'd"})
_OTHER_SUBJECTS = words_of(
    "you he she they we it who you're he's she's they're we're it's you'll he'll "
    "she'll they'll we'll"
)
_YOU = frozenset({"you", "you're", "you've", "you'll"})
_VOCATIVE = re.compile(r"([\w'-]+(?:\s+[\w'-]+)?)\s*,")


def caster(
    said: Utterance,
    start: int,
    before: list[str],
    third: bool,
    characters: Mapping[str, str],
) -> str | None:
    """Who casts with the verb at ``start`` of ``said``, its clause's words ``before`` it:
    ``third`` for a third-person verb (``casts``, ``throws``); ``characters`` the party's
    (``party_name_forms``)."""
    if not third and _first_person(before):
        return said.speaker
    if not third and _subjectless(before) and _first_person(_sentence_words(said, start)):
        return said.speaker  # "I am going to do a bonus action to cast Shield"
    if third:
        return _named_subject(before, characters)
    if _second_person(before):
        return _addressed(said.text, start, characters)
    return None


def _first_person(before: list[str]) -> bool:
    """Whether the clause's subject is ``I``: the last subject-like word before the verb."""
    for word in reversed(before):
        if word in _FIRST_PERSON:
            return True
        if word in _OTHER_SUBJECTS:
            return False
    return False


def _subjectless(before: list[str]) -> bool:
    """Whether the clause's words name no subject (its subject is further back)."""
    return _FIRST_PERSON.isdisjoint(before) and _OTHER_SUBJECTS.isdisjoint(before)


def _sentence_words(said: Utterance, end: int) -> list[str]:
    return [w.lower() for w in WORD.findall(sentence_before(said.text, end, ADDRESS_LOOKBACK))]


def _second_person(before: list[str]) -> bool:
    for word in reversed(before):
        if word in _YOU:
            return True
        if word in _OTHER_SUBJECTS or word in _FIRST_PERSON:
            return False
    return False


def _named_subject(before: list[str], characters: Mapping[str, str]) -> str | None:
    """``Scanlan casts``: the party character named just before the verb (adverbs
    skipped), by one or two words."""
    words = list(before)
    while words and words[-1] in ADVERBS:
        words.pop()
    for size in (2, 1):
        if len(words) >= size:
            found = characters.get(" ".join(words[-size:]))
            if found is not None:
                return found
    return None


def _addressed(text: str, end: int, characters: Mapping[str, str]) -> str | None:
    """``Keyleth, you cast``: the party character addressed (a name and a comma) last
    before ``end`` in its sentence."""
    found = None
    for vocative in _VOCATIVE.finditer(sentence_before(text, end, ADDRESS_LOOKBACK)):
        words = vocative.group(1).lower().split()
        for size in (2, 1):
            if len(words) >= size:
                name = characters.get(" ".join(words[-size:]))
                if name is not None:
                    found = name
                    break
    return found

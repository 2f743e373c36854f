"""How the spell rules read a unit's text: its words, the clause and the sentence before a
place, what is a question, a filler or a phrase; what a rule is given (``Utterance``) and
what it finds (``Found``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

# A word: letters, digits, ``_`` and apostrophes, hyphenated parts joined ("third-level")
WORD = re.compile(r"[\w']+(?:-[\w']+)*")
CLAUSE_BREAK = re.compile('[.!?;:,"()\\[\\]]|\\s-\\s|\u2014|\u2013')
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
SENTENCE_END = re.compile(r"[.!?]")
_LEVEL = re.compile(r"\w+-level|level-\d")

# How many of the clause's last words are read before a verb or a name
CLAUSE_WORDS = 8
# How many fillers ("a", "the", "my", "third-level") may stand between a verb and a name
MAX_FILLERS = 3
# How far back (or on) the rules read for what stands around a verb or a name, in
# characters. Each window only has to hold what its reader keeps, and is cut at the last
# break inside it; they differ as each reader was written, and a longer one could read
# more (a word cut at a window's start is read as a word), so each keeps its length:
# - the clause before: its last CLAUSE_WORDS words (``clause_before``);
CLAUSE_LOOKBACK = 80
# - the sentence before a question's verb, for the ``can I`` asking leave (``sentence_before``);
ASKING_LOOKBACK = 200
# - the sentence before ``you``, for the party character addressed (``caster.addressed``);
ADDRESS_LOOKBACK = 160
# - the clause after a casting verb, for the spell's name (``verbs.spell_after``).
SPELL_LOOKAHEAD = 160


def words_of(text: str) -> frozenset[str]:
    """The words of a list written as one string."""
    return frozenset(text.split())


_FILLERS = words_of(
    "a an the my his her their our another one some this that it up again also then "
    "level lvl first second third fourth fifth sixth seventh eighth ninth 1st 2nd "
    "3rd 4th 5th 6th 7th 8th 9th 1 2 3 4 5 6 7 8 9"
)
# Words before a verb or a name, in its clause, that say it is not (yet) a cast
BLOCKERS = words_of(
    "can can't cannot couldn't could should shouldn't would wouldn't might may must "
    "don't doesn't didn't won't not never no if when whenever unless until before "
    "after whether do does did able how why what "
    # attempts and failures, and what was only meant: not casts
    "try tries tried trying attempt attempts attempted attempting fail fails failed "
    "failing was were forgot forget glad almost nearly "
    # hedges: a choice not yet made ("I guess I'll do Healing Word")
    "guess maybe probably perhaps"
)
ADVERBS = words_of("just then also now quickly immediately instantly")


class Utterance(NamedTuple):
    """One unit as the rules read it."""

    text: str  # its apostrophes made straight
    lowered: list[str]  # its words (``WORD``), lower-cased
    words: Words  # the same words, as matches in ``text``
    speaker: str | None  # the speaker's character, when the party knows them
    reply: str | None  # the next unit's text when another speaker says it (``reply_to``)


class Found(NamedTuple):
    """A cast a rule found: where it is said, the spell (as the catalog spells it) and who
    casts it (``None``: not said)."""

    start: int
    end: int
    spell: str
    caster: str | None


class Words:
    """The words of a text (``WORD``) as matches, by index: found when first asked."""

    __slots__ = ("_found", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._found: list[re.Match[str]] | None = None

    def __getitem__(self, index: int) -> re.Match[str]:
        if self._found is None:
            self._found = list(WORD.finditer(self._text))
        return self._found[index]


def clause_before(text: str, end: int) -> list[str]:
    """The last words before ``end`` in the same clause, lower-cased."""
    head = text[max(0, end - CLAUSE_LOOKBACK) : end]
    breaks = list(CLAUSE_BREAK.finditer(head))
    if breaks:
        head = head[breaks[-1].end() :]
    return [word.lower() for word in WORD.findall(head)][-CLAUSE_WORDS:]


def sentence_before(text: str, end: int, lookback: int) -> str:
    """The text before ``end`` in the same sentence, at most ``lookback`` characters."""
    head = text[max(0, end - lookback) : end]
    ends = list(SENTENCE_END.finditer(head))
    if ends:
        head = head[ends[-1].end() :]
    return head


def first_sentence(text: str) -> list[str]:
    """The words of the text's first sentence, lower-cased."""
    text = text.translate(APOSTROPHES)
    stop = SENTENCE_END.search(text)
    head = text if stop is None else text[: stop.start()]
    return [word.lower() for word in WORD.findall(head)]


def is_question(text: str, start: int) -> bool:
    """Whether the sentence holding ``start`` ends with a question mark."""
    end = SENTENCE_END.search(text, start)
    return end is not None and end.group() == "?"


def is_filler(word: str) -> bool:
    lower = word.lower()
    return lower in _FILLERS or _LEVEL.fullmatch(lower) is not None


def is_possessive(word: str) -> bool:
    return len(word) > 2 and word[-2:].lower() == "'s"


def holds(words: list[str], phrases: Iterable[tuple[str, ...]]) -> bool:
    """Whether one of ``phrases`` stands in ``words``."""
    return any(
        tuple(words[i : i + len(phrase)]) == phrase
        for phrase in phrases
        for i in range(len(words) - len(phrase) + 1)
    )

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
# How many fillers ("a", "the", "my", "third-level", "all three of the") may stand between a
# verb and a name
MAX_FILLERS = 4
# How far the rules read around a verb or a name, in characters. Each window is cut at the
# last clause (or sentence) break inside it, so it only has to hold what its reader keeps.
# The lengths are those each reader was written with, not made one: a window of another
# length reads other words in a long clause or sentence (the word cut at its start, and
# what lies beyond the shorter one), and would change candidates.
# - the clause before a verb or a name, for its last CLAUSE_WORDS words (``clause_before``);
CLAUSE_LOOKBACK = 80
# - the sentence before a question's verb, which may open with ``Can I`` well ahead of it
#   ("Can I, as a bonus action, cast..."; ``leave.asked``);
ASKING_LOOKBACK = 200
# - the sentence before ``you``, for the party character addressed ("Keyleth, you cast";
#   ``caster``);
ADDRESS_LOOKBACK = 160
# - the clause after a casting verb, for a few fillers and the spell's name
#   (``verbs.spell_after``).
SPELL_LOOKAHEAD = 160


def words_of(text: str) -> frozenset[str]:
    """The words of a list written as one string."""
    return frozenset(text.split())


_FILLERS = words_of(
    "a an the my his her their our another one some this that it up again also then "
    "level lvl first second third fourth fifth sixth seventh eighth ninth 1st 2nd "
    "3rd 4th 5th 6th 7th 8th 9th 1 2 3 4 5 6 7 8 9 "
    # counts ("fire three Magic Missiles", "fire all three of the Scorching Ray balls"),
    # the word itself ("cast the spell Blur"), and a size ("throw a little Fireball")
    "two three four five all both of spell little"
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
# What follows a spell's name when it is aimed: an imperative's target ("Hunter's Mark on
# the big one"), ``shoot``'s ("shoot a Scorching Ray at the big guy")
TARGETS = words_of(
    "on at onto into him her it them us me myself yourself himself herself itself "
    "themselves ourselves"
)
ADVERBS = words_of("just then also now quickly immediately instantly")
# ``do`` after these is the plain verb of a plan, not a question's or a negation's:
# "I'm going to do a bonus action to cast Shield"
_DO_PLAIN_AFTER = words_of("to gonna will i'll we'll and")
# ``would`` before these is a wish said as a plan, not a condition: "I would like to use
# my bonus action to cast Hex on it"
_WISHES = words_of("like love")


def blocking(before: list[str]) -> set[str]:
    """The ``BLOCKERS`` among ``before`` (a clause's words), but ``do`` said as a plain
    verb (after ``to``, ``gonna``, ``I'll``...) and ``would`` before ``like`` or
    ``love``."""
    found = set(BLOCKERS.intersection(before))
    if "do" in found and all(
        i > 0 and before[i - 1] in _DO_PLAIN_AFTER for i, w in enumerate(before) if w == "do"
    ):
        found.discard("do")
    if "would" in found and all(
        before[i + 1 : i + 2] and before[i + 1] in _WISHES
        for i, w in enumerate(before)
        if w == "would"
    ):
        found.discard("would")
    return found


class Found(NamedTuple):
    """A cast a rule found: where it is said, the spell (as the catalog spells it) and who
    casts it (``None``: not said)."""

    start: int
    end: int
    spell: str
    caster: str | None


class Utterance:
    """One unit as the rules read it: its text (apostrophes made straight), its words
    (``WORD``) lower-cased, read once by every rule but the casting verb's, and where each
    word is (``word``: found when first asked, once a name is found); the speaker's
    character, when the party knows them, and the reply (``reply_to``)."""

    __slots__ = ("_found", "lowered", "reply", "speaker", "text")

    def __init__(self, text: str, speaker: str | None, reply: str | None) -> None:
        text = text.translate(APOSTROPHES)
        self.text = text
        # lower-casing leaves an ASCII text's words where they are
        if text.isascii():
            self.lowered: list[str] = WORD.findall(text.lower())
        else:
            self.lowered = [word.lower() for word in WORD.findall(text)]
        self.speaker = speaker
        self.reply = reply
        self._found: list[re.Match[str]] | None = None

    def word(self, index: int) -> re.Match[str]:
        """The ``index``-th word of the text, as a match (its place in ``text``)."""
        if self._found is None:
            self._found = list(WORD.finditer(self.text))
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
    """Whether the sentence holding ``start`` ends with a question mark, and no break
    after ``start`` starts another one before it: ``--`` ("I cast Sacred Flame at-- can
    I see anybody?") or a colon opening words said ("I use Vicious Mockery and say:
    What's up?")."""
    end = SENTENCE_END.search(text, start)
    if end is None or end.group() != "?":
        return False
    return text.find("--", start, end.start()) < 0 and text.find(":", start, end.start()) < 0


def is_filler(word: str) -> bool:
    lower = word.lower()
    return lower in _FILLERS or _LEVEL.fullmatch(lower) is not None


def is_possessive(word: str) -> bool:
    return len(word) > 2 and word[-2:].lower() == "'s"


def holds(words: list[str], phrases: Iterable[tuple[str, ...]]) -> bool:
    """Whether one of ``phrases`` stands in ``words`` (only a phrase whose first word is
    among them is looked for, where that word is)."""
    present = set(words)
    return any(
        tuple(words[i : i + len(phrase)]) == phrase
        for phrase in phrases
        if phrase[0] in present
        for i in range(len(words) - len(phrase) + 1)
        if words[i] == phrase[0]
    )

"""Whether what is said before a verb lets it be a cast (``asked``): a statement, a question
asking leave that the game master's reply gives, or blocked; and whether the game master
refuses a cast after it (``refused``)."""

from __future__ import annotations

import itertools
from enum import Enum

from streamer.domain.dnd.spell_rules.text import (
    APOSTROPHES,
    ASKING_LOOKBACK,
    SENTENCE_END,
    WORD,
    blocking,
    first_sentence,
    holds,
    is_question,
    sentence_before,
    words_of,
)

# A question asking leave ("Can I fire Eldritch Blast...?"), and the game master's leave
_ASKING = frozenset({("can", "i"), ("may", "i"), ("could", "i")})
_MODALS = frozenset({"can", "may", "could"})
_LEAVE_LEADS = (
    ("you", "can"),
    ("you", "may"),
    ("yes",),
    ("yep",),
    ("yeah",),
    ("sure",),
    ("go", "ahead"),
    ("go", "for", "it"),
    ("roll",),  # "Roll for the attack."
)
# "Make a dexterity saving throw.": ``make`` opening the reply and one of these in it
_ROLLS = words_of("roll rolls check save saving attack")
OKAY = (["okay"], ["ok"], ["all", "right"], ["alright"])
_NOT_LEAVE = words_of("but not no can't cannot try unfortunately")
# The game master refusing a cast, in the rest of its unit or the next one
_REFUSALS = (
    ("you", "can't"),
    ("you", "cannot"),
    ("you", "don't", "have"),
    ("you", "do", "not", "have"),
)


class Asked(Enum):
    """How a verb (or a name) is said, by the words of its clause and its sentence."""

    STATEMENT = "a statement that may be a cast"
    LEAVE_GIVEN = "a question asking leave in the first person that the reply gives"
    BLOCKED = "a negation, a modal, a condition, an attempt, a question: not a cast"


def asked(text: str, start: int, end: int, before: list[str], reply: str | None) -> Asked:
    """How the verb from ``start`` to ``end`` of ``text`` is said, its clause's words
    ``before`` it: leave is asked in the first person ("Can I fire Eldritch Blast...?")
    and given by the ``reply`` ("You can.")."""
    blocked = blocking(before)
    question = is_question(text, end)
    if not blocked and not question:
        return Asked.STATEMENT
    if reply is None or not question or not blocked <= _MODALS:
        return Asked.BLOCKED
    head = sentence_before(text, start, ASKING_LOOKBACK)
    words = [word.lower() for word in WORD.findall(head)]
    if not asks_leave(words):
        return Asked.BLOCKED
    return Asked.LEAVE_GIVEN if gives_leave(reply) else Asked.BLOCKED


def asks_leave(words: list[str]) -> bool:
    """Whether ``words`` (a sentence's, lower-cased) ask leave: ``can I``, ``may I``,
    ``could I``."""
    return any(pair in _ASKING for pair in itertools.pairwise(words))


def gives_leave(reply: str) -> bool:
    """The reply's first sentence opens with leave ("You can.", "Yes, you may.", "Sure.",
    "Go ahead", "Go for it", "Yeah", "Roll for the attack", "Make a ... roll") and holds no
    ``but``, ``not``, ``try``...; or it is ``Okay.`` and the next one does ("Okay. Go
    ahead and roll...")."""
    words = first_sentence(reply)
    if words in OKAY:
        rest = reply.translate(APOSTROPHES)
        stop = SENTENCE_END.search(rest)
        words = first_sentence(rest[stop.end() :]) if stop is not None else []
    opens = any(tuple(words[: len(lead)]) == lead for lead in _LEAVE_LEADS)
    opens = opens or (words[:1] == ["make"] and not _ROLLS.isdisjoint(words))
    return opens and not _NOT_LEAVE.intersection(words)


def refused(text: str, end: int, reply: str | None) -> bool:
    """A refusal after the cast: in the sentences after it in its unit ("I cast stoneskin
    on myself. You don't have that much time"), or in the reply's first sentence ("Mage
    Hand is an action to cast, so you can't hold--")."""
    stop = SENTENCE_END.search(text, end)
    rest = [] if stop is None else [w.lower() for w in WORD.findall(text[stop.end() :])]
    if holds(rest, _REFUSALS):
        return True
    return reply is not None and holds(first_sentence(reply), _REFUSALS)

"""The casts the game master's narration confirms (``narrated``): a spoken name that is
not an ordinary word (``NameForms``) followed by what the spell now does to the world
("as the Hold Person takes hold", "Stoneskin is placed on you") or after ``now has``
("the door now has Arcane Lock on it"). The caster is not said: normalization joins the
record to the declaration a few units before it (``CAST_WINDOW_UNITS``)."""

from __future__ import annotations

from streamer.domain.dnd.spell_rules.names import NameForms
from streamer.domain.dnd.spell_rules.text import (
    Found,
    Utterance,
    blocking,
    clause_before,
    is_filler,
    is_question,
)

# What follows a name in the narration of its effect ("placed on" someone present)
_TAKING_HOLD = (
    ("takes", "hold"),
    ("takes", "effect"),
    *(("is", "placed", "on", who) for who in ("you", "him", "her", "them", "it")),
)
# What stands before a name (fillers skipped) that ``on`` follows: "now has Hex on it"
_NOW_HAS = ("now", "has")


def narrated(said: Utterance, forms: NameForms) -> list[Found]:
    """The names whose narration says the spell takes hold, in a statement without a
    blocker in its clause."""
    found: list[Found] = []
    lowered, firsts = said.lowered, forms.firsts
    index = 0
    for at in [i for i, w in enumerate(lowered) if w in firsts]:
        if at < index:
            continue
        match = forms.at(lowered, at)
        if match is None:
            continue
        spell, end = match
        index = end
        after = tuple(lowered[end : end + 4])
        held = any(after[: len(phrase)] == phrase for phrase in _TAKING_HOLD)
        if not held and not (after[:1] == ("on",) and _after_now_has(lowered, at)):
            continue
        start, stop = said.word(at).start(), said.word(end - 1).end()
        if blocking(clause_before(said.text, start)) or is_question(said.text, stop):
            continue
        found.append(Found(start, stop, spell, None))
    return found


def _after_now_has(lowered: list[str], at: int) -> bool:
    """Whether ``now has`` stands before ``lowered[at]``, fillers between."""
    index = at
    while index > 0 and is_filler(lowered[index - 1]) and lowered[index - 1] != "has":
        index -= 1
    return tuple(lowered[max(0, index - 2) : index]) == _NOW_HAS

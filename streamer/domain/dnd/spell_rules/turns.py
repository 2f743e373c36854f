"""What the turns around a unit say of its casts: the reply (``reply_to``); the game master
acknowledging a name said alone (``acknowledged``: "Shield." / "All right.") and the short
units that may be one (``said_alone``); a name said alone that picks one of the options
its speaker just named (``said_before``, ``named_in``: "With either Mage Hand, or my own
hand" / "Up to you." / "Mage Hand."); and a cast taken back for another one
(``takes_back``, ``kept``: "I'm going to shoot a Scorching Ray at the big guy." ... "I'm
going to do a Fireball instead")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from streamer.domain.dnd.prefilter import WordGate
from streamer.domain.dnd.spell_rules.leave import OKAY
from streamer.domain.dnd.spell_rules.names import NameForms
from streamer.domain.dnd.spell_rules.text import APOSTROPHES, WORD, first_sentence
from streamer.domain.dnd.spell_rules.verbless import sounded
from streamer.framework.kinds.extraction_spec import ShownUnit
from streamer.framework.names import name_key

# How many units before a name said alone are read for the options its speaker named
OPTION_UNITS = 3
# The longest unit read for an ordinary word said alone ("Oh yes, Speak with Animals!")
ALONE_CHARACTERS = 40
# How many units after a cast a cast of another spell by the same caster with ``instead``
# takes it back
TAKEN_BACK_UNITS = 10
# The reply acknowledging a name said alone: "All right.", "Okay.", "All righty."
_ACKNOWLEDGING = (*OKAY, ["all", "righty"], ["alrighty"])
_INSTEAD = re.compile(r"(?<![\w'])instead(?![\w'])", re.IGNORECASE)


def acknowledged(reply: str | None) -> bool:
    """Whether the reply's first sentence is only an acknowledgement ("All right.")."""
    return reply is not None and first_sentence(reply) in _ACKNOWLEDGING


def named_in(texts: Iterable[str], forms: NameForms) -> set[str]:
    """The spells ``texts`` name (any spoken form of ``forms``)."""
    found: set[str] = set()
    for text in texts:
        lowered = [word.lower() for word in WORD.findall(text.translate(APOSTROPHES))]
        for index, word in enumerate(lowered):
            if word in forms.firsts:
                match = forms.at(lowered, index)
                if match is not None:
                    found.add(match[0])
    return found


def takes_back(text: str) -> bool:
    """Whether a unit's casts replace an earlier one ("I'm going to do a Fireball
    instead")."""
    return _INSTEAD.search(text) is not None


def reply_to(units: Sequence[ShownUnit], index: int) -> str | None:
    """The text of the unit after ``units[index]`` when another (known) speaker says it:
    the answer to a question, or a refusal. ``None`` for the last unit of the chunk."""
    if index + 1 >= len(units):
        return None
    unit, after = units[index], units[index + 1]
    if unit.speaker is None or after.speaker is None:
        return None
    return after.text if name_key(after.speaker) != name_key(unit.speaker) else None


def said_alone(units: Sequence[ShownUnit], gate: WordGate) -> list[int]:
    """The short units the gate does not read that may be a name that is an ordinary word
    said alone and acknowledged ("Shield." / "All right.") or with a sound ("Oh, light!
    (snaps)"): those ``gate`` (the words of those names) lets through."""
    short = [index for index, unit in enumerate(units) if len(unit.text) <= ALONE_CHARACTERS]
    picked = gate.units([units[index].text for index in short])
    return [
        index
        for index in (short[at] for at in picked)
        if sounded(units[index].text) or acknowledged(reply_to(units, index))
    ]


def said_before(
    units: Sequence[ShownUnit], index: int, before: Sequence[tuple[int, str]]
) -> list[str]:
    """What the speaker of ``units[index]`` said in the ``OPTION_UNITS`` units before it,
    in the units that gave no cast (``before``: the chunk's casts so far; a name said
    alone after a cast declared is the answer to a question about it, one record with
    it)."""
    speaker = units[index].speaker
    if speaker is None:
        return []
    key = name_key(speaker)
    first = max(0, index - OPTION_UNITS)
    cast = {at for at, _ in before if at >= first}
    return [
        unit.text
        for at, unit in enumerate(units[first:index], first)
        if at not in cast and unit.speaker is not None and name_key(unit.speaker) == key
    ]


def kept(
    records: list[tuple[int, dict[str, Any]]], index: int, found: Sequence[tuple[str, str | None]]
) -> list[tuple[int, dict[str, Any]]]:
    """The records but those a cast at ``index`` said ``instead`` takes back: the same
    caster's casts of another spell at most ``TAKEN_BACK_UNITS`` units before."""
    taken = {caster for _, caster in found if caster is not None}
    spells = {spell for spell, _ in found}
    return [
        (at, record)
        for at, record in records
        if not (
            index - at <= TAKEN_BACK_UNITS
            and record["caster"] in taken
            and record["spell"] not in spells
        )
    ]

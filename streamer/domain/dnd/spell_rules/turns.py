"""What the turns around a unit say of its casts: the game master acknowledging a name said
alone (``acknowledged``: "Shield." / "All right."), a name said alone that picks one of the
options its speaker just named (``named_in``: "With either Mage Hand, or my own hand" / "Up
to you." / "Mage Hand."), and a cast taken back for another one (``takes_back``: "I'm
going to shoot a Scorching Ray at the big guy." ... "I'm going to do a Fireball
instead")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from streamer.domain.dnd.spell_rules.leave import OKAY
from streamer.domain.dnd.spell_rules.names import NameForms
from streamer.domain.dnd.spell_rules.text import APOSTROPHES, WORD, first_sentence

# How many units before a name said alone are read for the options its speaker named
OPTION_UNITS = 3
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

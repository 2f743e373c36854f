"""The built-in rules extractor of ``dnd/item-events`` (``engine: rules``): no model.

Version 2 (``dnd/item-events-rules@2``). A sentence (of one unit, ending at ``.``, ``!``
or ``?``; a question gives nothing) tells an item event in one of these forms, the item
being a catalog name or a sum of money (``phrases.item_at``):

1. *found*: ``you find``, ``you found``, ``you discover``, ``you pull out``, ``you
   retrieve``, ``you receive``, ``you loot`` (``also``, ``then``, ``now``, ``do`` may stand
   between), followed by a list of items, or any sum of money later in the sentence
   (``you find a pouch that contains 62 gold pieces, three silver``) not after a price word
   (``worth``, ``for``): ``acquired``; the holder is the party character addressed before
   ``you`` (``Percy, you find...``), else ``null``. Said by anyone but a party player.
2. *handed over* in narration: ``hands``, ``gives``, ``tosses``, ``passes``, ``slides``,
   ``throws`` followed by ``you`` or a party character's name, then the item: ``acquired``
   (a party character's name as the subject: ``transferred``); the holder is the character
   named, else ``null``. Said by anyone but a party player.
3. *first person*, said by a party player (or, without a party, by anyone; then the holder
   is the speaker's label): ``I`` (``I'll``, ``I will``, ``I just``...) and a verb, the item
   right after it:
   - ``pick up``, ``pocket``, ``loot``, ``buy``, ``purchase``, ``steal``, ``take``,
     ``grab``, ``snag``, ``collect``: ``acquired`` by the speaker's character (not when
     ``out`` or ``off`` follows: ``I take out my flute``);
   - ``drink``, ``quaff``, ``down``, ``use``, ``activate``, ``read``, ``throw``, ``pour``,
     ``apply``, ``uncork``, ``light``: ``used`` by the speaker's character, when the item
     is of a kind that is used up or activated (``USABLE``: potions, scrolls, wondrous
     items, rings, wands, staffs, rods, poisons, gear, tools; never a weapon or armor);
   - ``give``, ``hand``, ``pay``, ``toss``, ``pass``, ``slide``, ``offer`` with a recipient
     (before the item, or after it with ``to``): a party character by name:
     ``transferred``, held by them; ``you`` when the unit before is a party player's:
     ``transferred``, held by ``null`` (their name is not said); ``you`` after anyone else,
     ``him``, ``her``, ``them``, ``the <someone>`` or a name that is no party character's:
     ``lost`` by the speaker's character. Without a party, ``you`` gives nothing.

4. *used* in narration, said by anyone but a party player: ``you`` and a use verb (or
   ``click``), then (``your`` and) an item used as in 3: ``used``, held by the party
   character addressed before ``you``, else ``null`` (``As you throw the ball bearing``).

Items used are never spellcasting foci (``Orb``, ``Wand``...); gear the catalog files as a
weapon that is lit or used up (``Torch``, ``Acid``, ``Oil``...) is used.

Not an event: anything in a question; a first-person verb whose clause, before ``I``,
holds a condition, a modal or a plan (``if``, ``can``, ``would``, ``should``, ``let's``,
``maybe``, ``want``...), or whose ``I`` is followed by one (``I can``, ``I'd``, ``I want
to``, ``I was``, ``I don't``); items the catalog does not know, other than money (a
homebrew ``obsidian key`` is left to a model: the rules cannot tell it from any noun).

Each candidate cites the one unit it was found in; its item is written as spoken, and the
catalog (``normalization_specs.ITEM_EVENTS``) canonicalizes it. The prefilter
(``prefilter.WordGate``, ``verbs.GATE_WORDS``) hands the rule only the units whose words hold
one of the verbs; ``ItemEventRules(prefilter=False)`` reads every unit, with the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamer.domain.dnd.gated_rules import GatedRules
from streamer.domain.dnd.item_rules.context import VERSION, ItemRules
from streamer.domain.dnd.item_rules.events import Event, events
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.names import name_key


class ItemEventRules(GatedRules):
    """The rules extractor of ``dnd/item-events`` (a ``RulesExtractor``)."""

    version = VERSION

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        rules = ItemRules.of(context)
        chosen = self.chosen(rules.gate, units)
        has_party = bool(rules.characters)
        records: list[dict[str, Any]] = []
        for index in chosen:
            unit = units[index]
            character = context.character_of(unit.speaker)
            player = character is not None
            if not has_party:
                character = unit.speaker
            before = _speaker_before(units, index)
            after_player = None if not has_party else context.character_of(before) is not None
            reference = {"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}
            for found in events(
                unit.text, rules, character, narrator=not player, after_player=after_player
            ):
                records.append(_record(found, reference))
        return records


def _record(found: Event, reference: dict[str, str]) -> dict[str, Any]:
    return {
        "item": found.item,
        "event": found.event,
        "holder": found.holder,
        "source_refs": [reference],
    }


def _speaker_before(units: Sequence[ShownUnit], index: int) -> str | None:
    """The speaker of the unit before ``units[index]`` when someone else says it."""
    if index == 0:
        return None
    unit, before = units[index], units[index - 1]
    if unit.speaker is None or before.speaker is None:
        return None
    return before.speaker if name_key(before.speaker) != name_key(unit.speaker) else None

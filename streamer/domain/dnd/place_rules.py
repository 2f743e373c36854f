"""The built-in rules of ``dnd/places`` (``dnd/places-rules@7``): the session's named places.

The places are those the proper-noun miner tells from the whole session (``name_mining``,
``world_names``: a place word in the name, or more place cues than person cues). One
candidate per unit and place named there (any of its forms, as whole words, case-insensitive,
apostrophe forms ignored), citing the unit; normalization's registry rule makes them one
record per place citing every unit. The rules never name a place the transcript does not
say, nor a generic one ("the tavern").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamer.domain.dnd import name_mining
from streamer.domain.dnd.npc_rules import FormMatcher, cite
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

PLACES_VERSION = "dnd/places-rules@7"
NO_PLACES = "the transcript names no place the rules can tell from a person or a thing"


class PlaceRules:
    """``dnd/places``: every unit naming a mined place."""

    version = PLACES_VERSION

    def survey(self, units: Sequence[ShownUnit], context: RulesContext) -> None:
        name_mining.survey(self.version, units, context)

    def _matcher(self, context: RulesContext) -> FormMatcher:
        found = context.memo.get(name_mining.PLACE_NAMES)
        if not isinstance(found, FormMatcher):
            mined = name_mining.mined(context)
            found = FormMatcher.of(mined.places, mined.short)
            context.memo[name_mining.PLACE_NAMES] = found
        return found

    def note(self, context: RulesContext) -> str | None:
        return NO_PLACES if self._matcher(context).pattern is None else None

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        matcher = self._matcher(context)
        if matcher.pattern is None:
            return []
        chosen = [units[i] for i in matcher.gate.units([unit.text for unit in units])]
        return cite(matcher, chosen, "name")

"""The proper-noun miner of a run: the survey kept in ``RulesContext.memo``, and what it finds.

The rules of ``dnd/npcs`` and ``dnd/places`` (and any rule that needs the session's NPC
names: ``NpcNames.of``) survey the session through ``survey(units, context)``, which
extraction calls for every chunk's new units before any candidate is written
(``SurveyingRules``). Several lanes survey the same run: the first one to survey owns the
counts, and the others' surveys add nothing, so each unit is counted once. ``mined(context)``
is what the counts tell (``world_names.classify``), computed once after the survey.
"""

from __future__ import annotations

from collections.abc import Sequence

from streamer.domain.dnd.proper_nouns import NameSurvey
from streamer.domain.dnd.world_names import WorldNames, classify
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

SURVEY = "dnd/name-survey"
MINED = "dnd/mined-names"
NPC_NAMES = "dnd/npc-names"  # NpcNames.of's
PLACE_NAMES = "dnd/place-names"  # PlaceRules'
_DERIVED = (MINED, NPC_NAMES, PLACE_NAMES)  # what the memo derives from the counts


def survey(owner: str, units: Sequence[ShownUnit], context: RulesContext) -> None:
    """Count ``units`` into the run's survey, when ``owner`` (a rules version) owns it."""
    found = context.memo.get(SURVEY)
    if found is None:
        found = context.memo[SURVEY] = (owner, NameSurvey())
    assert isinstance(found, tuple)
    surveyor, counts = found
    if surveyor != owner or not units:
        return
    for unit in units:
        counts.add(unit.speaker, unit.text)
    for key in _DERIVED:
        context.memo.pop(key, None)


def mined(context: RulesContext) -> WorldNames:
    """The session's mined NPCs and places (none before a survey)."""
    found = context.memo.get(MINED)
    if not isinstance(found, WorldNames):
        surveyed = context.memo.get(SURVEY)
        counts = surveyed[1] if isinstance(surveyed, tuple) else NameSurvey()
        found = classify(counts, context.party, context.names)
        context.memo[MINED] = found
    return found

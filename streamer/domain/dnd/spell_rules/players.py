"""The players without a glossary's party, for a name said alone (``Firebolt.``).

With a party, a name said alone counts from a speaker the party lists. Without one, the
survey pass (``survey``) counts the session's units per speaker, and ``is_player`` takes
any speaker but the game master, the speaker of the most units (ties: the first label),
whose label names one speaker (not ``LAURA, SAM``): the rule ``party_inference`` uses
for whose character a name is. Counts only: deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

SPEAKERS = "dnd/spell-casts speakers"  # the run's memo: units per speaker (a Counter)
GAME_MASTER = "dnd/spell-casts game master"  # the memo: the game master, once derived


def survey(units: Sequence[ShownUnit], context: RulesContext) -> None:
    """Count ``units`` per speaker into the run's memo (nothing with a party)."""
    if context.party:
        return
    counts = context.memo.setdefault(SPEAKERS, Counter())
    assert isinstance(counts, Counter)
    counts.update(unit.speaker for unit in units if unit.speaker)
    context.memo.pop(GAME_MASTER, None)


def game_master(context: RulesContext) -> str:
    """The speaker of the most units the survey counted ("" before a survey)."""
    found = context.memo.get(GAME_MASTER)
    if not isinstance(found, str):
        counts = context.memo.get(SPEAKERS)
        ranked = (
            sorted((-n, who) for who, n in counts.items()) if isinstance(counts, Counter) else []
        )
        found = context.memo[GAME_MASTER] = ranked[0][1] if ranked else ""
    return found


def is_player(speaker: str | None, context: RulesContext) -> bool:
    """Whether ``speaker`` is a player: with a party, one it lists; without, any speaker
    but the game master whose label names one speaker."""
    if context.party:
        return context.character_of(speaker) is not None
    if not speaker or "," in speaker:
        return False
    gm = game_master(context)
    return bool(gm) and speaker != gm

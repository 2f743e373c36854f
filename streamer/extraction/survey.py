"""The survey pass: the session, chunk by chunk, to the rules that need all of it first.

A rules extractor with a ``survey`` (``SurveyingRules``) sees each chunk's new units (never
a chunk's overlap again), in chunk order, before any chunk is extracted: it keeps what it
counts in the run's ``RulesContext.memo``. Without such an extractor there is no pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from streamer.extraction.chunks import ChunkPlan
from streamer.framework.kinds.engines import ChunkExtractor
from streamer.framework.kinds.extraction_spec import (
    RulesContext,
    ShownUnit,
    SurveyingRules,
    new_units,
)


def survey(
    plan: ChunkPlan, extractors: Sequence[ChunkExtractor | None], context: RulesContext
) -> None:
    """Each chunk's new units, in order, to every surveying extractor of ``extractors``."""
    surveying: list[SurveyingRules] = []
    for each in extractors:
        if isinstance(each, SurveyingRules):
            surveying.append(each)
    if not surveying:
        return
    previous: Sequence[ShownUnit] = ()
    for chunk in plan.chunks():
        units = new_units(previous, chunk.units)
        for extractor in surveying:
            extractor.survey(units, context)
        previous = chunk.units

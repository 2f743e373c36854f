"""``lexicon``: a local engine that finds vows by their words, for the kinds it knows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamer.framework.kinds.engines import ChunkExtractor, Engine
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.kinds.registry import ArtifactKind

from .oaths import OATHS, cites


class VowWords:
    """ "I vow" binds as heavily as an oath sworn on a life."""

    version = "tavern/lexicon@1"

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        return [
            {"sworn_by": unit.speaker, "binding": "heavy", "source_refs": cites(unit)}
            for unit in units
            if "i vow" in unit.text.casefold()
        ]


def extractor(kind: ArtifactKind[Any]) -> ChunkExtractor | None:
    return VowWords() if kind.name == OATHS.name else None


ENGINE = Engine("lexicon", "vows found by their words (tavern/oaths)", extractor)

"""``tavern/oaths``: which oaths are sworn, and by whom. The kind's one declaration: its
record, labels, evidence member, prompt, rules and normalization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from streamer.framework.kinds.extraction_spec import ExtractionSpec, Prompt, RulesContext, ShownUnit
from streamer.framework.kinds.normalization_spec import NormalizationSpec
from streamer.framework.kinds.records import NonEmpty, SourceReferences
from streamer.framework.kinds.registry import ArtifactKind


class Oath(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    oath_id: NonEmpty
    sworn_by: NonEmpty | None
    binding: Literal["light", "heavy"]
    source_refs: SourceReferences


PROMPT = Prompt(
    "tavern/oaths@1",
    "List every oath sworn in these lines: who swears it (sworn_by, the speaker, or null), "
    "binding heavy when it is sworn on a life, else light, and the line it is sworn in.",
)


def cites(unit: ShownUnit) -> list[dict[str, str]]:
    """The one-unit reference of ``unit``."""
    return [{"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}]


class OathRules:
    """An oath is a line saying "I swear"; sworn "on my life", it binds heavily."""

    version = "tavern/oaths-rules@1"

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for unit in units:
            text = unit.text.casefold()
            if "i swear" in text:
                binding = "heavy" if "on my life" in text else "light"
                found.append(
                    {"sworn_by": unit.speaker, "binding": binding, "source_refs": cites(unit)}
                )
        return found


OATHS: ArtifactKind[Oath] = ArtifactKind(
    name="tavern/oaths",
    default_lane="oaths",
    question="Which oaths are sworn, and by whom?",
    record=Oath,
    id_member="oath_id",
    evidence_member="source_refs",
    labels={"oath_id": "Oath", "source_refs": "Evidence"},
    extraction=ExtractionSpec(PROMPT, rules=OathRules()),
    normalization=NormalizationSpec(id_prefix="oath", name_members=("sworn_by",)),
)

KINDS = (OATHS,)

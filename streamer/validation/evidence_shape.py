"""The shape of the evidence document as the streaming check reads it: where its units and
references are (each built in C by ``framework.json.events``), and a context's head as a msgspec
struct (jsonschema runs only when it fails, to name the problem)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from streamer.framework.json.events import item_events
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.source_unit import NonEmpty
from streamer.output import evidence_context
from streamer.validation.schema_rules import schema_of

FILE = evidence_context.FILE_NAME
SCHEMA_ID = evidence_context.SCHEMA.id
UNITS_ARRAY = "contexts.item.units"
UNITS = f"{UNITS_ARRAY}.item"
REFERENCES = "contexts.item.references.item"
IN_CONTEXT = "contexts.item"

LaneId = Annotated[str, msgspec.Meta(pattern="^[a-z0-9][a-z0-9_-]{0,63}$")]


class Reference(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One reference of a context, as the schema's ``$defs/reference`` states it (but for
    ``lane_ids`` being distinct, checked beside)."""

    source_ref: SourceReference
    lane_ids: Annotated[list[LaneId], msgspec.Meta(min_length=1)]


class ContextHead(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A context without its units (they are checked one batch at a time)."""

    start_unit_id: NonEmpty
    end_unit_id: NonEmpty
    references: Annotated[list[Reference], msgspec.Meta(min_length=1)]
    units: list[Any]


Cited = dict[tuple[str, str, str], str]  # (start, end, lane) -> where the evidence cites it


@dataclass(frozen=True)
class CheckedEvidence:
    """A valid evidence document's allowlist, and where it attributes each reference."""

    allowlist: list[str]
    cited: Cited


def stream_items() -> list[tuple[str, frozenset[tuple[str, str]]]]:
    schema = schema_of(SCHEMA_ID)
    defs = schema["$defs"]
    return [
        (UNITS, item_events(UNITS, defs["unit"], defs)),
        (REFERENCES, item_events(REFERENCES, defs["reference"], defs)),
    ]


def sound_head(head: Any) -> bool:
    """Whether a context's head satisfies its schema (the common case, without jsonschema)."""
    try:
        checked = msgspec.convert(head, ContextHead)
    except msgspec.ValidationError:
        return False
    return all(len(set(item.lane_ids)) == len(item.lane_ids) for item in checked.references)


def named_ids(references: list[Any]) -> list[str]:
    """The unit IDs at the ends of well-formed references (others fail the schema)."""
    named: list[str] = []
    for reference in references:
        source_ref = reference.get("source_ref") if isinstance(reference, dict) else None
        if isinstance(source_ref, dict):
            named.extend(
                value
                for value in (source_ref.get("start_unit_id"), source_ref.get("end_unit_id"))
                if isinstance(value, str)
            )
    return named

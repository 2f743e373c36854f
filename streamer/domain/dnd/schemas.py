"""The JSON Schemas of the D&D lane payloads, v1: the record shapes of ``design/contract.md``.

Every string is non-empty and no other members are accepted. The framework supplies the
lane payload envelope; the generated files ship in ``streamer/output/schemas/``.
"""

from __future__ import annotations

from typing import Any

from streamer.domain.dnd.kinds import KINDS
from streamer.framework.kinds.lane_schema import (
    NON_EMPTY_STRING,
    NULLABLE_STRING,
    SOURCE_REF,
    SOURCE_REFS,
    lane_payload_schema,
    record_schema,
)

RECORDS: dict[str, dict[str, Any]] = {
    "dnd/spell-casts": record_schema(
        {
            "spell_cast_id": NON_EMPTY_STRING,
            "spell": NON_EMPTY_STRING,
            "caster": NULLABLE_STRING,
            "source_refs": SOURCE_REFS,
        }
    ),
    "dnd/npcs": record_schema(
        {"npc_id": NON_EMPTY_STRING, "name": NON_EMPTY_STRING, "source_refs": SOURCE_REFS}
    ),
    "dnd/npc-interactions": record_schema(
        {"interaction_id": NON_EMPTY_STRING, "npc": NON_EMPTY_STRING, "source_refs": SOURCE_REFS}
    ),
    "dnd/combat-turns": record_schema(
        {
            "turn_id": NON_EMPTY_STRING,
            "combatant": NON_EMPTY_STRING,
            "round": {"type": ["integer", "null"], "minimum": 1},
            "source_refs": SOURCE_REFS,
        }
    ),
    "dnd/item-events": record_schema(
        {
            "item_event_id": NON_EMPTY_STRING,
            "item": NON_EMPTY_STRING,
            "event": {"enum": ["acquired", "lost", "used", "transferred"]},
            "holder": NULLABLE_STRING,
            "source_refs": SOURCE_REFS,
        }
    ),
    "dnd/scene-descriptions": record_schema(
        {"scene_id": NON_EMPTY_STRING, "location": NULLABLE_STRING, "source_ref": SOURCE_REF}
    ),
    "dnd/party-roster": record_schema({"player": NON_EMPTY_STRING, "character": NON_EMPTY_STRING}),
}


def lane_schemas() -> dict[str, dict[str, Any]]:
    """The lane payload schema of every D&D kind, by schema ID."""
    return {kind.schema.id: lane_payload_schema(kind, RECORDS[kind.name]) for kind in KINDS}

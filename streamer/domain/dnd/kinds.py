"""The seven D&D artifact kinds. Each answers one question with the smallest record
(ADR-0009); every kind but the party roster exposes its evidence through a typed
projection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamer.framework.kinds.records import (
    dataclass_to_json,
    non_empty_string,
    nullable_string,
    one_of,
    positive_integer_or_null,
    record_parser,
    source_reference,
    source_references,
)
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from streamer.framework.source.reference import SourceReference

Refs = tuple[SourceReference, ...]


@dataclass(frozen=True)
class SpellCast:
    spell_cast_id: str
    spell: str
    caster: str | None
    source_refs: Refs


@dataclass(frozen=True)
class Npc:
    npc_id: str
    name: str
    source_refs: Refs


@dataclass(frozen=True)
class NpcInteraction:
    interaction_id: str
    npc: str
    source_refs: Refs


@dataclass(frozen=True)
class CombatTurn:
    turn_id: str
    combatant: str
    round: int | None
    source_refs: Refs


@dataclass(frozen=True)
class ItemEvent:
    item_event_id: str
    item: str
    event: str
    holder: str | None
    source_refs: Refs


@dataclass(frozen=True)
class SceneDescription:
    scene_id: str
    location: str | None
    source_ref: SourceReference


@dataclass(frozen=True)
class PartyMember:
    player: str
    character: str


def _plural(record: Any) -> Refs:
    refs: Refs = record.source_refs
    return refs


def _scene(record: SceneDescription) -> Refs:
    return (record.source_ref,)


KINDS: tuple[ArtifactKind[Any], ...] = (
    ArtifactKind[SpellCast](
        name="dnd/spell-casts",
        default_lane="spells",
        question="Which spells were cast, and by whom?",
        parse_record=record_parser(
            [
                ("spell_cast_id", non_empty_string),
                ("spell", non_empty_string),
                ("caster", nullable_string),
                ("source_refs", source_references),
            ],
            SpellCast,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.spell_cast_id,
        evidence=_plural,
    ),
    ArtifactKind[Npc](
        name="dnd/npcs",
        default_lane="npcs",
        question="Which non-player characters appear?",
        parse_record=record_parser(
            [
                ("npc_id", non_empty_string),
                ("name", non_empty_string),
                ("source_refs", source_references),
            ],
            Npc,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.npc_id,
        evidence=_plural,
    ),
    ArtifactKind[NpcInteraction](
        name="dnd/npc-interactions",
        default_lane="npc-interactions",
        question="When does the party deal with a non-player character?",
        parse_record=record_parser(
            [
                ("interaction_id", non_empty_string),
                ("npc", non_empty_string),
                ("source_refs", source_references),
            ],
            NpcInteraction,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.interaction_id,
        evidence=_plural,
    ),
    ArtifactKind[CombatTurn](
        name="dnd/combat-turns",
        default_lane="combat-turns",
        question="Who takes a turn in combat, in which round?",
        parse_record=record_parser(
            [
                ("turn_id", non_empty_string),
                ("combatant", non_empty_string),
                ("round", positive_integer_or_null),
                ("source_refs", source_references),
            ],
            CombatTurn,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.turn_id,
        evidence=_plural,
    ),
    ArtifactKind[ItemEvent](
        name="dnd/item-events",
        default_lane="item-events",
        question="Which items are acquired, lost, used or transferred?",
        parse_record=record_parser(
            [
                ("item_event_id", non_empty_string),
                ("item", non_empty_string),
                ("event", one_of("acquired", "lost", "used", "transferred")),
                ("holder", nullable_string),
                ("source_refs", source_references),
            ],
            ItemEvent,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.item_event_id,
        evidence=_plural,
    ),
    ArtifactKind[SceneDescription](
        name="dnd/scene-descriptions",
        default_lane="scene-descriptions",
        question="Where does each scene begin and end?",
        parse_record=record_parser(
            [
                ("scene_id", non_empty_string),
                ("location", nullable_string),
                ("source_ref", source_reference),
            ],
            SceneDescription,
        ),
        record_to_json=dataclass_to_json,
        record_id=lambda record: record.scene_id,
        evidence=_scene,
    ),
    ArtifactKind[PartyMember](
        name="dnd/party-roster",
        default_lane="party-roster",
        question="Which player plays which character?",
        parse_record=record_parser(
            [("player", non_empty_string), ("character", non_empty_string)], PartyMember
        ),
        record_to_json=dataclass_to_json,
    ),
)


def register(registry: ArtifactKindRegistry) -> None:
    for kind in KINDS:
        registry.register(kind)

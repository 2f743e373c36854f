"""The eight D&D artifact kinds, v1 (``design/contract.md``), each declared once.

Each kind answers one question with the smallest record (ADR-0009). A record is one
msgspec ``Struct``: its parser, encoder, JSON Schema and model-facing record (the record
without its ID member) all come from it. Every kind but the party roster names its
``evidence_member``, from which its typed evidence projection comes.

``KINDS`` is registered as the ``streamer.kinds`` entry point ``dnd`` (``pyproject.toml``),
as a plugin registers its own (``docs/plugins.md``). Adding a D&D kind: declare its record
``Struct`` here (``forbid_unknown_fields=True``, the ID member first, members in published
order), add one ``ArtifactKind`` to ``KINDS``, regenerate the shipped schema
(``tests/test_schemas.py`` says how), and test it. ``docs/kinds.md`` has the recipe.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from streamer.domain.dnd import normalization_specs, prompts
from streamer.domain.dnd.item_rules.rules import ItemEventRules
from streamer.domain.dnd.npc_rules import NpcRules
from streamer.domain.dnd.place_rules import PlaceRules
from streamer.domain.dnd.rules import SpellCastRules
from streamer.framework.kinds.campaign_spec import CampaignCasts, CampaignEntries
from streamer.framework.kinds.extraction_spec import ExtractionSpec
from streamer.framework.kinds.records import NonEmpty, PositiveInteger, SourceReferences
from streamer.framework.kinds.registry import ArtifactKind
from streamer.framework.source.reference import SourceReference


class SpellCast(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    spell_cast_id: NonEmpty
    spell: NonEmpty
    caster: NonEmpty | None
    source_refs: SourceReferences


class Npc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    npc_id: NonEmpty
    name: NonEmpty
    source_refs: SourceReferences


class Place(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    place_id: NonEmpty
    name: NonEmpty
    source_refs: SourceReferences


class NpcInteraction(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    interaction_id: NonEmpty
    npc: NonEmpty
    source_refs: SourceReferences


class CombatTurn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    turn_id: NonEmpty
    combatant: NonEmpty
    round: PositiveInteger | None
    source_refs: SourceReferences


class ItemEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    item_event_id: NonEmpty
    item: NonEmpty
    event: Literal["acquired", "lost", "used", "transferred"]
    holder: NonEmpty | None
    source_refs: SourceReferences


class SceneDescription(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scene_id: NonEmpty
    location: NonEmpty | None
    source_ref: SourceReference


class PartyMember(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player: NonEmpty
    character: NonEmpty


# What a person reads for each member (the report's headings); a member not named here
# reads as its name, underscores as spaces, capitalized (``ArtifactKind.label``).
_EVIDENCE = {"source_refs": "Evidence"}

# The campaign registry (docs/campaign.md): one entry per NPC, place and item across the
# sessions, names compared by name key less a leading article; a one-word NPC name joins
# the one NPC whose first name it is; a party character is never an NPC entry.
_ARTICLES = ("the", "a", "an")
NPC_ENTRIES = CampaignEntries(
    "npcs", "name", _ARTICLES, short_names=True, not_party=True, title="Non-player characters"
)
PLACE_ENTRIES = CampaignEntries("places", "name", _ARTICLES, title="Places")
ITEM_ENTRIES = CampaignEntries("items", "item", _ARTICLES, title="Items")
CASTS = CampaignCasts("caster", "spell", title="Spells by character")


KINDS: tuple[ArtifactKind[Any], ...] = (
    ArtifactKind(
        name="dnd/spell-casts",
        default_lane="spells",
        question="Which spells were cast, and by whom?",
        record=SpellCast,
        labels={"spell_cast_id": "Spell cast", "spell": "Spell", "caster": "Caster", **_EVIDENCE},
        id_member="spell_cast_id",
        evidence_member="source_refs",
        extraction=ExtractionSpec(prompts.SPELL_CASTS, rules=SpellCastRules()),
        normalization=normalization_specs.SPELL_CASTS,
        campaign=CASTS,
    ),
    ArtifactKind(
        name="dnd/npcs",
        default_lane="npcs",
        question="Which non-player characters appear?",
        record=Npc,
        labels={"npc_id": "NPC", "name": "Name", **_EVIDENCE},
        id_member="npc_id",
        evidence_member="source_refs",
        extraction=ExtractionSpec(prompts.NPCS, rules=NpcRules()),
        normalization=normalization_specs.NPCS,
        campaign=NPC_ENTRIES,
    ),
    ArtifactKind(
        name="dnd/places",
        default_lane="places",
        question="Which named places does the session visit or talk about?",
        record=Place,
        labels={"place_id": "Place", "name": "Name", **_EVIDENCE},
        id_member="place_id",
        evidence_member="source_refs",
        extraction=ExtractionSpec(prompts.PLACES, rules=PlaceRules()),
        normalization=normalization_specs.PLACES,
        campaign=PLACE_ENTRIES,
    ),
    ArtifactKind(
        name="dnd/npc-interactions",
        default_lane="npc-interactions",
        question="When does the party deal with a non-player character?",
        record=NpcInteraction,
        labels={"interaction_id": "Interaction", "npc": "NPC", **_EVIDENCE},
        id_member="interaction_id",
        evidence_member="source_refs",
        # no rules: none reached the precision asked of them (docs/extraction.md)
        extraction=ExtractionSpec(prompts.NPC_INTERACTIONS),
        normalization=normalization_specs.NPC_INTERACTIONS,
    ),
    ArtifactKind(
        name="dnd/combat-turns",
        default_lane="combat-turns",
        question="Who takes a turn in combat, in which round?",
        record=CombatTurn,
        labels={"turn_id": "Turn", "combatant": "Combatant", "round": "Round", **_EVIDENCE},
        id_member="turn_id",
        evidence_member="source_refs",
        extraction=ExtractionSpec(prompts.COMBAT_TURNS),
        normalization=normalization_specs.COMBAT_TURNS,
    ),
    ArtifactKind(
        name="dnd/item-events",
        default_lane="item-events",
        question="Which items are acquired, lost, used or transferred?",
        record=ItemEvent,
        labels={
            "item_event_id": "Item event",
            "item": "Item",
            "event": "Event",
            "holder": "Holder",
            **_EVIDENCE,
        },
        id_member="item_event_id",
        evidence_member="source_refs",
        extraction=ExtractionSpec(prompts.ITEM_EVENTS, rules=ItemEventRules()),
        normalization=normalization_specs.ITEM_EVENTS,
        campaign=ITEM_ENTRIES,
    ),
    ArtifactKind(
        name="dnd/scene-descriptions",
        default_lane="scene-descriptions",
        question="Where does each scene begin and end?",
        record=SceneDescription,
        labels={"scene_id": "Scene", "location": "Location", "source_ref": "Evidence"},
        id_member="scene_id",
        evidence_member="source_ref",
        extraction=ExtractionSpec(prompts.SCENE_DESCRIPTIONS),
        normalization=normalization_specs.SCENE_DESCRIPTIONS,
        broad=True,
    ),
    ArtifactKind(
        name="dnd/party-roster",
        default_lane="party-roster",
        question="Which player plays which character?",
        record=PartyMember,
        labels={"player": "Player", "character": "Character"},
        normalization=normalization_specs.PARTY_ROSTER,
    ),
)

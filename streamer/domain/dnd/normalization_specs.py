"""How the D&D kinds are normalized: the name members, the catalog members, the identity
rule, and the members the support check reads (textual, and who acts) of each kind
(``docs/normalization.md`` has the table).

Not checked: ``event`` (an enumeration the record type restricts) and ``round`` (a count
the game master states once a round, not in each turn's units: a classification, as
``docs/normalization.md`` explains)."""

from __future__ import annotations

import dataclasses

from streamer.domain.dnd.item_rules.catalog import srd_items
from streamer.domain.dnd.spell_catalog import srd_spells
from streamer.framework.kinds.normalization_spec import Collapse, NormalizationSpec

# One cast, one record: a declaration ("I cast Slow on them") and the game master's
# narration of it ("...as you cast Slow...") are one record when they cite units at most
# this many apart (and name the same caster, or one names none). Five units: the labelled
# CRD3 set's narrations follow their declarations by one to five units, while the same
# caster's next cast of a spell comes at their next turn, dozens of units later.
CAST_WINDOW_UNITS = 5


class _SrdSpells:
    """The SRD spell catalog, loaded when a spell name is first canonicalized."""

    def canonical(self, value: str) -> str:
        return srd_spells().canonical(value)

    def spoken_forms(self, value: str) -> tuple[str, ...]:
        return srd_spells().spoken_forms(value)


# One event, one record: a player's "I drink my potion of healing" and the game master's
# "you drink the potion" are one record when they cite units at most this many apart (and
# name the same holder, or one names none); the same reasoning as a cast's window.
ITEM_WINDOW_UNITS = 5


class _SrdItems:
    """The SRD item catalog (and currency), loaded when an item is first canonicalized."""

    def canonical(self, value: str) -> str:
        return srd_items().canonical(value)

    def spoken_forms(self, value: str) -> tuple[str, ...]:
        return srd_items().spoken_forms(value)


SPELL_CASTS = NormalizationSpec(
    id_prefix="spell",
    name_members=("caster",),
    catalogs={"spell": _SrdSpells()},
    textual_members=("spell", "caster"),
    actor_members=("caster",),
    glossary_aliases={"spell": "spells"},
    collapse=Collapse.NEARBY,
    window_units=CAST_WINDOW_UNITS,
    optional_members=("caster",),
)
NPCS = NormalizationSpec(
    id_prefix="npc",
    collapse=Collapse.REGISTRY,
    name_members=("name",),
    key_member="name",
    textual_members=("name",),
)
PLACES = dataclasses.replace(NPCS, id_prefix="place")  # one record a place, by name
NPC_INTERACTIONS = NormalizationSpec(
    id_prefix="interaction", name_members=("npc",), textual_members=("npc",)
)
COMBAT_TURNS = NormalizationSpec(
    id_prefix="turn",
    name_members=("combatant",),
    textual_members=("combatant",),
    actor_members=("combatant",),
)
ITEM_EVENTS = NormalizationSpec(
    id_prefix="item-event",
    name_members=("holder",),
    catalogs={"item": _SrdItems()},
    textual_members=("item", "holder"),
    actor_members=("holder",),
    collapse=Collapse.NEARBY,
    window_units=ITEM_WINDOW_UNITS,
    optional_members=("holder",),
)
SCENE_DESCRIPTIONS = NormalizationSpec(
    id_prefix="scene", collapse=Collapse.SPAN, textual_members=("location",)
)
PARTY_ROSTER = NormalizationSpec(id_prefix="", glossary_section="party")

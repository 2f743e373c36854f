"""How the D&D kinds are normalized: the name members, the catalog members and the
identity rule of each kind (``docs/normalization.md`` has the table)."""

from __future__ import annotations

from streamer.domain.dnd.spell_catalog import srd_spells
from streamer.framework.kinds.normalization import Collapse, NormalizationSpec


class _SrdSpells:
    """The SRD spell catalog, loaded when a spell name is first canonicalized."""

    def canonical(self, value: str) -> str:
        return srd_spells().canonical(value)


SPELL_CASTS = NormalizationSpec(
    id_prefix="spell", name_members=("caster",), catalogs={"spell": _SrdSpells()}
)
NPCS = NormalizationSpec(
    id_prefix="npc", collapse=Collapse.REGISTRY, name_members=("name",), key_member="name"
)
NPC_INTERACTIONS = NormalizationSpec(id_prefix="interaction", name_members=("npc",))
COMBAT_TURNS = NormalizationSpec(id_prefix="turn", name_members=("combatant",))
ITEM_EVENTS = NormalizationSpec(id_prefix="item-event", name_members=("holder",))
SCENE_DESCRIPTIONS = NormalizationSpec(
    id_prefix="scene", collapse=Collapse.SPAN, evidence_member="source_ref"
)
PARTY_ROSTER = NormalizationSpec(id_prefix="", evidence_member=None, glossary_section="party")

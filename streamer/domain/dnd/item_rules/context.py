"""What the item rules read besides a unit, built once per run (``ItemRules.of``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from streamer.domain.dnd.item_rules.catalog import ItemCatalog, srd_items
from streamer.domain.dnd.item_rules.verbs import GATE_WORDS
from streamer.domain.dnd.party_names import party_name_forms
from streamer.domain.dnd.prefilter import WordGate
from streamer.domain.dnd.spell_rules.text import APOSTROPHES, WORD
from streamer.framework.kinds.extraction_spec import RulesContext

VERSION = "dnd/item-events-rules@2"


@dataclass(frozen=True)
class ItemRules:
    """What the item rules read besides a unit: built once per run (``of``)."""

    catalog: ItemCatalog
    characters: Mapping[str, str]  # name key of a party character's name form -> character
    gate: WordGate

    @staticmethod
    def of(context: RulesContext) -> ItemRules:
        rules = context.memo.get(VERSION)
        if not isinstance(rules, ItemRules):
            gate = WordGate(GATE_WORDS, (), WORD, APOSTROPHES)
            rules = ItemRules(srd_items(), party_name_forms(context), gate)
            context.memo[VERSION] = rules
        return rules

"""What the item rules read besides a unit, built once per run (``ItemRules.of``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from streamer.domain.dnd.item_rules.catalog import ItemCatalog, srd_items
from streamer.domain.dnd.prefilter import Gate
from streamer.domain.dnd.rules import party_name_forms
from streamer.framework.kinds.extraction_spec import RulesContext

VERSION = "dnd/item-events-rules@1"
KEYWORDS = (
    "find", "found", "discover", "pull", "retriev", "receiv", "loot", "hand", "give",
    "toss", "pass", "slide", "throw", "pick", "pocket", "buy", "purchas", "steal", "take",
    "grab", "snag", "collect", "drink", "quaff", "down", "use", "activat", "read", "pour",
    "appl", "uncork", "light", "pay", "here",
)  # fmt: skip


@dataclass(frozen=True)
class ItemRules:
    """What the item rules read besides a unit: built once per run (``of``)."""

    catalog: ItemCatalog
    characters: Mapping[str, str]  # name key of a party character's name form -> character
    gate: Gate

    @staticmethod
    def of(context: RulesContext) -> ItemRules:
        rules = context.memo.get(VERSION)
        if not isinstance(rules, ItemRules):
            rules = ItemRules(srd_items(), party_name_forms(context), Gate(KEYWORDS))
            context.memo[VERSION] = rules
        return rules

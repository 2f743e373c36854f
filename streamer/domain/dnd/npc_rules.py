"""The built-in rules of ``dnd/npcs``, and the NPC names the rules of
``dnd/npc-interactions`` (``interaction_rules``) read: the group's own NPCs.

The rules know no NPC of their own: they read the glossary's ``names``. An entry is a
*non-player character* when neither its name nor any of its aliases is a party character
(the glossary's ``party``, compared by name key); every other entry is the party's.

- *Named*: a unit names an NPC when its text holds the NPC's name or one of its aliases
  as whole words (case-insensitive, apostrophe forms and runs of white space ignored; a
  letter, digit or underscore on either side is another word: ``Kima`` is not in
  ``Kimarra``, ``Gilmore's`` names ``Gilmore``).
- ``dnd/npcs`` (``dnd/npcs-rules@1``): one candidate per unit and NPC named there, citing
  the unit; normalization's registry rule makes them one record per NPC citing every unit.

Without a glossary naming NPCs, the rules give no candidates, and the lane's receipt says
so (``note``). The prefilter (``prefilter.Gate``, keyword: each name's first word) hands
the per-unit rule only the units that can name one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.domain.dnd.prefilter import Gate
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.names import name_key

NPCS_VERSION = "dnd/npcs-rules@1"
NO_NAMES = (
    "the glossary names no non-player character (its names, less the party's): "
    "the rules look for those names only"
)
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))
_FIRST_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class NpcNames:
    """The glossary's NPCs: one pattern over lower-cased text, and the NPC of each form."""

    pattern: re.Pattern[str] | None
    npc_of: Mapping[str, str]  # a form, lower-cased, single-spaced -> the NPC's name
    gate: Gate

    @staticmethod
    def of(context: RulesContext) -> NpcNames:
        found = context.memo.get(NPCS_VERSION)
        if not isinstance(found, NpcNames):
            found = _build(npc_forms(context))
            context.memo[NPCS_VERSION] = found
        return found

    def named(self, text: str) -> list[str]:
        """The NPCs ``text`` names, each once, in order of first mention."""
        if self.pattern is None:
            return []
        low = text.translate(_APOSTROPHES).lower()
        out: list[str] = []
        for match in self.pattern.finditer(low):
            npc = self.npc_of[" ".join(match.group().split())]
            if npc not in out:
                out.append(npc)
        return out


def npc_forms(context: RulesContext) -> dict[str, str]:
    """Name key of each NPC name and alias -> the NPC's glossary name."""
    party = {name_key(character) for character in context.party.values()}
    entries: dict[str, list[str]] = {}
    for key, canonical in context.names.items():
        entries.setdefault(canonical, []).append(key)
    return {
        key: canonical
        for canonical, keys in entries.items()
        if not party.intersection([name_key(canonical), *keys])
        for key in keys
    }


def _build(forms: Mapping[str, str]) -> NpcNames:
    lowered = {" ".join(key.lower().split()): npc for key, npc in forms.items()}
    lowered = {form: npc for form, npc in lowered.items() if _FIRST_WORD.search(form)}
    if not lowered:
        return NpcNames(None, {}, Gate(()))
    ordered = sorted(lowered, key=lambda form: (-len(form), form))
    alternatives = "|".join(r"\s+".join(map(re.escape, form.split())) for form in ordered)
    pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")
    keywords: Iterable[str] = (_first_word(form) for form in ordered)
    return NpcNames(pattern, lowered, Gate(keywords))


def _first_word(form: str) -> str:
    found = _FIRST_WORD.search(form)
    assert found is not None
    return found.group()


def _reference(unit: ShownUnit) -> list[dict[str, str]]:
    return [{"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}]


class _NpcRules:
    member = "name"
    version = NPCS_VERSION

    def __init__(self, *, prefilter: bool = True) -> None:
        self._prefilter = prefilter

    def note(self, context: RulesContext) -> str | None:
        return NO_NAMES if NpcNames.of(context).pattern is None else None

    def _speaks(self, unit: ShownUnit, context: RulesContext) -> bool:
        return True

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        names = NpcNames.of(context)
        if names.pattern is None:
            return []
        chosen: Iterable[ShownUnit] = units
        if self._prefilter:
            chosen = [units[i] for i in names.gate.units([unit.text for unit in units])]
        records: list[dict[str, Any]] = []
        for unit in chosen:
            if not self._speaks(unit, context):
                continue
            for npc in names.named(unit.text):
                records.append({self.member: npc, "source_refs": _reference(unit)})
        return records


class NpcRules(_NpcRules):
    """``dnd/npcs``: every unit naming a glossary NPC."""

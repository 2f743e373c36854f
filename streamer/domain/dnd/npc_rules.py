"""The built-in rules of ``dnd/npcs``: the session's NPCs.

The NPCs are the glossary's and the session's own. A glossary entry is a *non-player
character* when neither its name nor any of its aliases is a party character (the
glossary's ``party``, compared by name key); every other entry is the party's. The
session's own are those the proper-noun miner tells from the whole session
(``name_mining``, ``world_names``), once the survey pass has run: a mined name the
glossary lists takes the glossary's name; one of the party's is never an NPC.
``NpcNames.of(context)`` gives both (the glossary's forms first).

- *Named*: a unit names an NPC when its text holds the NPC's name or one of its aliases
  as whole words (case-insensitive, apostrophe forms and runs of white space ignored; a
  letter, digit or underscore on either side is another word: ``Kima`` is not in
  ``Kimarra``, ``Gilmore's`` names ``Gilmore``).
- ``dnd/npcs`` (``dnd/npcs-rules@8``): one candidate per unit and NPC named there, citing
  the unit; normalization's registry rule makes them one record per NPC citing every unit.

Without a glossary naming NPCs and with no NPC mined (or no survey), the rules give no
candidates, and the lane's receipt says so (``note``). The prefilter (``prefilter.Gate``,
keyword: each name's first word) hands the per-unit rule only the units that can name one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.domain.dnd import name_mining
from streamer.domain.dnd.prefilter import Gate
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.names import name_key

NPCS_VERSION = "dnd/npcs-rules@8"
NO_NAMES = (
    "the glossary names no non-player character (its names, less the party's): "
    "the rules look for those names only"
)
NO_NPCS = (
    "the glossary names no non-player character (its names, less the party's) "
    "and the transcript names none the rules can tell"
)
GLOSSARY_NPCS = "dnd/glossary-npc-names"
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))
_FIRST_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class FormMatcher:
    """Names and their forms: one pattern over lower-cased text, and the name of each form."""

    pattern: re.Pattern[str] | None
    npc_of: Mapping[str, str]  # a form, lower-cased, single-spaced -> the name
    gate: Gate
    short: frozenset[str] = frozenset()  # forms that do not say their name alone

    @staticmethod
    def of(forms: Mapping[str, str], short: Iterable[str] = ()) -> FormMatcher:
        """The matcher of ``forms`` (a form -> its name); ``short``: the forms that do not
        say their name alone ("Nostoc" of "Nostoc Greyspine")."""
        built = _build(forms)
        lowered = frozenset(" ".join(form.lower().split()) for form in short)
        return FormMatcher(built.pattern, built.npc_of, built.gate, lowered)

    def mentions(self, text: str) -> list[tuple[str, bool]]:
        """The names ``text`` says, each once, in order of first mention, and whether a
        form that says the name alone is among them."""
        if self.pattern is None:
            return []
        low = text.translate(_APOSTROPHES).lower()
        out: dict[str, bool] = {}
        for match in self.pattern.finditer(low):
            form = " ".join(match.group().split())
            name = self.npc_of[form]
            out[name] = out.get(name, False) or form not in self.short
        return list(out.items())

    def named(self, text: str) -> list[str]:
        """The names ``text`` says, each once, in order of first mention."""
        if self.pattern is None:
            return []
        low = text.translate(_APOSTROPHES).lower()
        out: list[str] = []
        for match in self.pattern.finditer(low):
            npc = self.npc_of[" ".join(match.group().split())]
            if npc not in out:
                out.append(npc)
        return out


class NpcNames(FormMatcher):
    """The run's NPCs: the glossary's and, after the survey, the session's mined ones
    (``of``), or the glossary's only (``glossary``)."""

    @staticmethod
    def glossary(context: RulesContext) -> NpcNames:
        found = context.memo.get(GLOSSARY_NPCS)
        if not isinstance(found, NpcNames):
            built = FormMatcher.of(npc_forms(context))
            found = NpcNames(built.pattern, built.npc_of, built.gate, built.short)
            context.memo[GLOSSARY_NPCS] = found
        return found

    @staticmethod
    def of(context: RulesContext) -> NpcNames:  # type: ignore[override]
        found = context.memo.get(name_mining.NPC_NAMES)
        if not isinstance(found, NpcNames):
            mined = name_mining.mined(context)
            glossary = npc_forms(context)
            said_alone = {" ".join(form.lower().split()) for form in glossary}
            short = {form for form in mined.short if form.lower() not in said_alone}
            built = FormMatcher.of({**mined.npcs, **glossary}, short)
            found = NpcNames(built.pattern, built.npc_of, built.gate, built.short)
            context.memo[name_mining.NPC_NAMES] = found
        return found


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


def _build(forms: Mapping[str, str]) -> FormMatcher:
    lowered = {" ".join(key.lower().split()): npc for key, npc in forms.items()}
    lowered = {form: npc for form, npc in lowered.items() if _FIRST_WORD.search(form)}
    if not lowered:
        return FormMatcher(None, {}, Gate(()))
    ordered = sorted(lowered, key=lambda form: (-len(form), form))
    alternatives = "|".join(r"\s+".join(map(re.escape, form.split())) for form in ordered)
    # a whole word: "Gilmore's" names Gilmore, "Vax'ildan" does not name Vax
    pattern = re.compile(rf"(?<!\w)(?<!\w')(?:{alternatives})(?!\w)(?!'(?!s\b)\w)")
    keywords: Iterable[str] = (_first_word(form) for form in ordered)
    return FormMatcher(pattern, lowered, Gate(keywords))


def _first_word(form: str) -> str:
    found = _FIRST_WORD.search(form)
    assert found is not None
    return found.group()


def reference(unit: ShownUnit) -> list[dict[str, str]]:
    return [{"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}]


class _NpcRules:
    member = "name"
    version = NPCS_VERSION

    def __init__(self, *, prefilter: bool = True) -> None:
        self._prefilter = prefilter

    def note(self, context: RulesContext) -> str | None:
        return NO_NPCS if self._names(context).pattern is None else None

    def _names(self, context: RulesContext) -> NpcNames:
        return NpcNames.of(context)

    def _speaks(self, unit: ShownUnit, context: RulesContext) -> bool:
        return True

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        names = self._names(context)
        if names.pattern is None:
            return []
        chosen: Iterable[ShownUnit] = units
        if self._prefilter:
            chosen = [units[i] for i in names.gate.units([unit.text for unit in units])]
        chosen = [unit for unit in chosen if self._speaks(unit, context)]
        return cite(names, chosen, self.member)


def cite(matcher: FormMatcher, units: Sequence[ShownUnit], member: str) -> list[dict[str, Any]]:
    """One record per unit and name said there, citing the unit; a unit saying a name only
    by a short form ("Nostoc") cites too the nearest unit of the chunk saying it alone
    ("Nostoc Greyspine", the earlier one of two as near), or gives no record."""
    said = [(index, matcher.mentions(unit.text)) for index, unit in enumerate(units)]
    alone: dict[str, list[int]] = {}
    for index, mentions in said:
        for name, whole in mentions:
            if whole:
                alone.setdefault(name, []).append(index)
    records: list[dict[str, Any]] = []
    for index, mentions in said:
        for name, whole in mentions:
            refs = reference(units[index])
            if not whole:
                near = min(alone.get(name, []), key=lambda at: (abs(at - index), at), default=None)
                if near is None:
                    continue
                refs += reference(units[near])
            records.append({member: name, "source_refs": refs})
    return records


class NpcRules(_NpcRules):
    """``dnd/npcs``: every unit naming a glossary NPC or a mined one (after its survey)."""

    def survey(self, units: Sequence[ShownUnit], context: RulesContext) -> None:
        name_mining.survey(self.version, units, context)

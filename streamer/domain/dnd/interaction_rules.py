"""The built-in rules of ``dnd/npc-interactions`` (``dnd/npc-interactions-rules@2``): a
party player dealing with a present NPC in a turn of dialogue.

The NPCs are ``NpcNames.of(context)`` (``npc_rules``: the glossary's non-party names, and
whatever else that class learns to give). A unit is an interaction with an NPC when its
speaker plays a party character (the glossary's ``party``), the NPC is *present*, the unit
*addresses* them, and nothing says it is planning or talk to the game master:

- *present*: a unit of the chunk spoken by someone who plays no party character (the game
  master) named the NPC at most ``PRESENT_UNITS`` units before;
- *addressed*, one of:
  1. by name, as a vocative: the name opens a sentence (after at most a few openers such
     as ``oh``, ``hey``, ``yes``) and a comma follows (``Brenna, where is the key?``); or
     it closes a sentence after a comma, with at least two other words before it (``Where
     is the key, Brenna?``; ``No, Brenna!`` is an exclamation, not counted); or it follows
     a greeting or thanks (``thank you, Brenna``, ``hello Brenna``);
  2. by ``you``: the unit holds ``you`` (``your``, ``you're``...), names no NPC and no
     party character (a name or alias, or a name's first word), and answers the game
     master voicing the NPC: the unit just before is the game master's, and the NPC is
     the last one it names in the narration just before a quotation (``Gustav goes,
     "..."``; not a name after ``of``, ``to``, ``for``, ``with``, ``at`` or before
     ``'s``: ``the wife of Syldor``), unless that narration brings in someone else after
     the name (``a woman``, ``a guard``, ``another figure``...: they may be the one who
     speaks) or a narration longer than ``SPEECH_TAG_CHARS`` naming no NPC comes before a
     later quotation; the candidate cites that unit too (it says the name);
- *not*: a unit holding a planning or recollection word (``let's``, ``should``, ``if``,
  ``remember``, ``maybe``, ``think``, ``guys``...) or table talk (``roll``, ``check``,
  ``damage``, ``spell``, ``Matt``...) gives nothing; nor does a unit naming the NPC in the
  third person, or a player's ``you`` after anything but the game master voicing a named
  NPC.

A unit addressing two NPCs gives two candidates; a vocative candidate cites its one unit.
Without a party or without NPC names the rules give nothing (the receipt says why,
``note``). The rules read every unit (no prefilter): presence is carried from unit to unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from streamer.domain.dnd import name_mining
from streamer.domain.dnd.npc_rules import NO_NAMES, NpcNames
from streamer.domain.dnd.party_names import party_name_forms
from streamer.domain.dnd.spell_rules.text import words_of
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

VERSION = "dnd/npc-interactions-rules@2"
PRESENT_UNITS = 10  # how far back the game master's naming keeps an NPC present
SPEECH_TAG_CHARS = 60  # "he says, " between two quotations keeps the speaker; more may not
NO_PARTY = "the glossary names no party: the rules cannot tell a player's turn"

_PARTY_FORMS = f"{VERSION}/party"
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))
_QUOTE = re.compile('["\u201c\u201d]')
_WORD = re.compile(r"[a-z0-9']+")
_SECOND = words_of("you your you're you'll you've yours yourself y'all")
_PLANNING = words_of(
    "let's lets should if remember remembered maybe perhaps probably think guys we'll wonder plan"
)
_TABLE = words_of(
    "roll rolled rolling check initiative damage advantage disadvantage perception "
    "insight persuasion deception intimidation investigation stealth spell cast "
    "attack action bonus d20 dc matt hp"
)
_GREETINGS = words_of("thank thanks hello hi hey goodbye bye dear sorry please welcome")
_OPENERS = words_of("oh ah well yes no yeah okay ok sir madam so and but hey hi hello")
_ASKS_LEAVE = re.compile(r"\b(?:can|could|do|may|should) i\b")  # a question to the table
# Someone else brought in after the NPC's name: they may be the one who speaks
_SOMEONE_ELSE = re.compile(
    r"\b(?:a|an|another|some)\s+(?:[a-z-]+\s+){0,3}?(?:woman|man|figure|voice|guard|girl|boy|"
    r"person|stranger|child|someone|elf|dwarf|human|halfling|gnome|orc|servant|soldier)\b"
)
_SENTENCE_END = re.compile(r"[.!?]")


class NpcInteractionRules:
    """The rules extractor of ``dnd/npc-interactions`` (a ``RulesExtractor``)."""

    version = VERSION

    def survey(self, units: Sequence[ShownUnit], context: RulesContext) -> None:
        """Count the session for the NPC miner, unless the NPC rules already do (the
        survey's first owner counts it, once)."""
        name_mining.survey(self.version, units, context)

    def note(self, context: RulesContext) -> str | None:
        if NpcNames.of(context).pattern is None:
            return NO_NAMES
        return NO_PARTY if not context.party else None

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        names = NpcNames.of(context)
        if names.pattern is None or not context.party:
            return []
        seen: dict[str, int] = {}  # NPC -> index of the game master's last unit naming them
        # NPC -> the game master's last unit saying their name alone (not "Nostoc" only, a
        # mined short form of "Nostoc Greyspine"): what a record may cite for the name
        said: dict[str, int] = {}
        last: tuple[str, int] | None = None  # the NPC the game master named last, where
        records: list[dict[str, Any]] = []
        for index, unit in enumerate(units):
            low = unit.text.translate(_APOSTROPHES).lower()
            if context.character_of(unit.speaker) is None:
                if unit.speaker is not None:
                    alone = dict(names.mentions(low))
                    for npc, whole in alone.items():
                        seen[npc] = index
                        if whole:
                            said[npc] = index
                    voiced = _voiced(low, names)
                    last = None if voiced is None or not alone.get(voiced) else (voiced, index)
                continue
            for npc, named_at in _addressed(low, names, index, (seen, said), last, context):
                cited = [units[named_at], unit] if named_at is not None else [unit]
                references = [{"start_unit_id": u.unit_id, "end_unit_id": u.unit_id} for u in cited]
                records.append({"npc": npc, "source_refs": references})
        return records


def _addressed(
    low: str,
    names: NpcNames,
    index: int,
    named_by: tuple[dict[str, int], dict[str, int]],
    last: tuple[str, int] | None,
    context: RulesContext,
) -> list[tuple[str, int | None]]:
    """The NPCs the party player's unit at ``index`` (``low``: its text, lower-cased)
    addresses, each with the index of the game master's unit naming them when the unit
    does not say the name alone (``named_by``: the game master's last unit naming each
    NPC, and the last saying the name alone)."""
    seen, said = named_by
    words = set(_WORD.findall(low))
    if words & _PLANNING or words & _TABLE or _ASKS_LEAVE.search(low):
        return []
    assert names.pattern is not None
    found: list[tuple[str, int | None]] = []
    named = False
    for match in names.pattern.finditer(low):
        named = True
        form = " ".join(match.group().split())
        npc = names.npc_of[form]
        present = index - seen.get(npc, -PRESENT_UNITS - 1) <= PRESENT_UNITS
        if not (present and _vocative(low, match.start(), match.end())):
            continue
        if form not in names.short:
            cited: int | None = None
        elif index - said.get(npc, -PRESENT_UNITS - 1) <= PRESENT_UNITS:
            cited = said[npc]  # a short form: the unit that says the name cites it too
        else:
            continue
        if all(npc != each for each, _ in found):
            found.append((npc, cited))
    if found or named or not words & _SECOND or last is None:
        return found
    npc, where = last
    if where != index - 1 or _names_party(low, context):
        return []
    return [(npc, where)]


def _voiced(low: str, names: NpcNames) -> str | None:
    """The NPC the game master's unit ``low`` voices last: the last one named in the
    narration just before a quotation (``Gustav goes, "..."``), unless a longer narration
    naming no NPC comes before a later quotation (someone else may speak); or ``None``."""
    parts = _QUOTE.split(low)
    voiced = None
    assert names.pattern is not None
    for narration in parts[0:-1:2]:  # each narration followed by a quotation
        matches = [m for m in names.pattern.finditer(narration) if _subject(narration, m)]
        if matches:
            voiced = names.npc_of[" ".join(matches[-1].group().split())]
            if _SOMEONE_ELSE.search(narration, matches[-1].end()):
                voiced = None  # "...Syldor's door opens and you see a woman standing there"
        elif len(narration) > SPEECH_TAG_CHARS:
            voiced = None
    return voiced


def _subject(narration: str, match: re.Match[str]) -> bool:
    """Whether a name may be who speaks: not an object or an owner (``the wife of
    Syldor``, ``to Syldor``, ``Syldor's door``)."""
    before = narration[: match.start()].split()[-1:]
    return before not in (["of"], ["to"], ["for"], ["with"], ["at"]) and not narration[
        match.end() :
    ].startswith("'s")


def _vocative(low: str, start: int, end: int) -> bool:
    """Whether the name at ``low[start:end]`` is said to its bearer."""
    head = low[:start]
    cut = max(head.rfind(mark) for mark in '.!?"\u201c\u201d')
    lead = _WORD.findall(head[cut + 1 :])
    after = low[end:].lstrip()
    if (lead and lead[-1] in _GREETINGS) or lead[-2:] == ["thank", "you"]:
        return True
    if all(word in _OPENERS for word in lead) and after.startswith(","):
        return True
    closes = after == "" or _SENTENCE_END.match(after) is not None
    said = [word for word in lead if word not in _OPENERS]
    return closes and head.rstrip().endswith(",") and len(said) >= 2


def _names_party(low: str, context: RulesContext) -> bool:
    """Whether ``low`` names a party character (a name or alias, or its first word):
    talk within the party."""
    forms = context.memo.get(_PARTY_FORMS)
    if not isinstance(forms, frozenset):
        forms = frozenset(form.split()[0] for form in party_name_forms(context) if form)
        context.memo[_PARTY_FORMS] = forms
    return not forms.isdisjoint(_WORD.findall(low))

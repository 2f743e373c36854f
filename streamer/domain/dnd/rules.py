"""The built-in rules extractor of ``dnd/spell-casts`` (``engine: rules``): no model.

Version 3 (``dnd/spell-casts-rules@3``). A candidate is one of:

1. a *casting statement*: a casting verb (``cast``, ``casts``, ``casting``, whole words),
   followed, after at most a few filler words (``a``, ``the``, ``my``, ``another``, a level
   such as ``third-level``), by a spell name (``SpellMatcher``: the SRD catalog, its
   aliases, the glossary's ``spells`` aliases; the longest name that matches, compared by
   the catalog's match key, then without the articles, and ``<Name>'s <SRD name>``);
2. *another verb* (``use``, ``throw``, ``send``, ``fire``, ``release``, ``do``, and their
   ``-s`` forms) before a spoken name that is not an ordinary word (``NameForms``), after
   at most a particle (``out``) and a few fillers but no possessive (``send my spiritual
   weapon`` moves a spell already up), and not followed by ``damage`` or ``slot``:
   ``I'll just throw a healing word to him``, ``I'm going to use Vicious Mockery``;
3. a *spell name used as a verb*: a spoken name of the catalog (``NameForms``: its words,
   case-insensitive, articles added or dropped, a wizard's ``<Name>'s`` before it) that is
   not an ordinary word (``ORDINARY_SPELLS`` need a casting verb), either in the first
   person (``I Plane Shift it``, ``I'll Dimension Door into the house``, ``I'm going to
   Misty Step``) or as an imperative with a target at the start of a clause (``Greater
   Restoration on Grog``: the next word is ``on``, ``at``, ``into``, ``him``, ``them``...,
   or ``right``/``directly``/``straight`` and then one);
4. a *name said alone*: a party player's unit that is a spoken name that is not an ordinary
   word and nothing else but a few leading words (``Oh yes, Hunter's Mark.``,
   ``Firebolt.``: the words run together too); no question mark.

Not a cast, and nothing given: a sentence that is a question (it ends with ``?``); words
before the verb (or the name) in its clause holding a negation, a modal, a condition, an
attempt, a failure or a hedge (``can``, ``would``, ``don't``, ``if``, ``when``, ``tried``,
``try``, ``attempts``, ``fails``, ``was going to``, ``guess``, ``maybe``...); the casting
noun (``the cast of``); a cast the game master refuses (``you can't``, ``you cannot``,
``you don't have``, ``you do not have`` in the sentences after it in its unit, or in the
first sentence of the reply). One question is a cast: asking leave in the first person
(``can I``, ``may I``, ``could I`` before the verb in its sentence, no other blocker) when
the reply gives it (its first sentence opens with ``you can``, ``you may``, ``yes``,
``yep``, ``sure`` or ``go ahead`` and holds no ``but``, ``not``, ``no``, ``try``...; or it
is ``Okay.`` and the next one opens with ``go ahead``). The *reply* is the next unit of
the chunk when another known speaker says it (``reply_to``): a unit that ends its chunk
has none, and its copy in the next chunk (the overlap) is read with it.

``caster``: the speaker's character (the glossary's ``party``) when the statement is in the
first person (and for a question asking leave); for the game master's narration, the party
character named as the subject (``Scanlan casts``, ``Scanlan throws``) or addressed before
``you`` in the sentence (``Keyleth, you cast``): a character's name or one of its glossary
aliases. Otherwise ``null`` (an imperative, a name said alone: no first-person word, so the
support check would not accept the speaker). Every caster given is one the support check of
normalization accepts.

Each candidate cites the one unit it was found in; the spell is written as the
catalog (or the glossary) spells it. Deterministic: by unit, then by position in the text.

The prefilter (``prefilter.WordGate``) hands the per-unit rules only the units whose words
hold a casting verb (``VERBS``), every word of a name form (``NameForms.by_words``) or a
form's words run together (``NameForms.joined``): every form other than after a casting
verb needs a name form; a reply is read from the whole chunk.
``SpellCastRules(prefilter=False)`` runs them on every unit, and gives the same candidates.

The rules' parts are in ``spell_rules``: the words of a text (``text``), the spell names
(``names``), the casts said with a verb (``verbs``) or without one (``verbless``), leave
asked and refused (``leave``) and the caster (``caster``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from streamer.domain.dnd.prefilter import WordGate
from streamer.domain.dnd.spell_catalog import ALIASES, srd_spells
from streamer.domain.dnd.spell_rules.leave import refused
from streamer.domain.dnd.spell_rules.names import ORDINARY_SPELLS, NameForms, SpellMatcher
from streamer.domain.dnd.spell_rules.text import APOSTROPHES, WORD, Found, Utterance
from streamer.domain.dnd.spell_rules.verbless import bare_name, names_as_verbs
from streamer.domain.dnd.spell_rules.verbs import (
    OTHER_VERBS,
    VERBS,
    casting_verbs,
    other_verbs,
)
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.names import name_key

__all__ = [
    "ORDINARY_SPELLS",
    "VERBS",
    "VERSION",
    "Cast",
    "SpellCastRules",
    "SpellRules",
    "casts",
    "party_name_forms",
    "reply_to",
]

VERSION = "dnd/spell-casts-rules@3"
SPELLS_SECTION = "spells"  # the glossary's spell aliases: {"Tiny Hut": [hut, "the dome"]}

# The words of the spoken forms said most often at the table, most first (counted on the
# four CRD3 episodes): the prefilter looks for a form by its rarest word (any would find
# the same units; a rare one costs fewer checks)
FREQUENT_WORDS = (
    "to", "and", "of", "with", "see", "from", "into", "or", "good", "other", "time",
    "laughter", "find", "hand", "water", "door", "wall", "form", "armor", "magic", "fire",
    "guards", "hold", "dead", "stone", "true", "eye", "arcane", "hands", "kill", "life",
    "giant", "call", "bolt", "spider", "drink", "step", "strike", "arrow", "cloud", "stop",
    "healing", "mind", "chest", "black", "lightning", "energy", "without", "mark", "beast",
    "poison", "person", "weapon", "flame", "movement", "wounds", "heal", "pass", "ice",
    "hope", "blade", "sword", "hunter's", "dragon", "mouth", "blast", "metal", "word",
    "lights", "monster", "familiar", "shift", "cure", "nature", "fog", "tiny", "fall",
    "burning",
)  # fmt: skip


@dataclass(frozen=True)
class SpellRules:
    """Everything the spell rules read besides a unit: built once per run (``of``)."""

    matcher: SpellMatcher
    forms: NameForms
    characters: Mapping[str, str]  # name key of a party character's name form -> character
    gate: WordGate

    @staticmethod
    def of(context: RulesContext) -> SpellRules:
        rules = context.memo.get(VERSION)
        if not isinstance(rules, SpellRules):
            rules = _build(context)
            context.memo[VERSION] = rules
        return rules


@cache
def _catalog_pairs() -> tuple[tuple[str, str], ...]:
    catalog = srd_spells()
    return (*((name, name) for name in catalog.names), *ALIASES.items())


def _build(context: RulesContext) -> SpellRules:
    catalog = srd_spells()
    pairs = list(_catalog_pairs())
    glossary = [
        (spoken, catalog.canonical(name))
        for spoken, name in context.aliases.get(SPELLS_SECTION, {}).items()
    ]
    verbless = [(spoken, name) for spoken, name in pairs if spoken not in ORDINARY_SPELLS]
    forms = NameForms(verbless)
    return SpellRules(
        SpellMatcher([*pairs, *glossary]),
        forms,
        party_name_forms(context),
        WordGate(
            VERBS,
            [*forms.by_words, *((j,) for j in forms.joined)],
            WORD,
            APOSTROPHES,
            FREQUENT_WORDS,
        ),
    )


def party_name_forms(context: RulesContext) -> dict[str, str]:
    """The names a party character goes by (name key -> character): the character's name
    and its glossary aliases (what the support check accepts as saying the caster); a
    form two characters share is dropped."""
    forms: dict[str, set[str]] = {}
    for character in context.party.values():
        spoken = {character}
        canonical = context.names.get(name_key(character), character)
        spoken.update(alias for alias, name in context.names.items() if name == canonical)
        for form in spoken:
            forms.setdefault(name_key(form), set()).add(character)
    return {form: next(iter(names)) for form, names in forms.items() if len(names) == 1}


class SpellCastRules:
    """The rules extractor of ``dnd/spell-casts`` (a ``RulesExtractor``)."""

    def __init__(self, *, prefilter: bool = True) -> None:
        self._prefilter = prefilter

    @property
    def version(self) -> str:
        return VERSION

    def note(self, context: RulesContext) -> str | None:
        return None

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        rules = SpellRules.of(context)
        if self._prefilter:
            chosen: Iterable[int] = rules.gate.units([unit.text for unit in units])
        else:
            chosen = range(len(units))
        records: list[dict[str, Any]] = []
        for index in chosen:
            unit = units[index]
            speaker = context.character_of(unit.speaker)
            for spell, caster in casts(unit.text, rules, speaker, reply_to(units, index)):
                reference = {"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}
                records.append({"spell": spell, "caster": caster, "source_refs": [reference]})
        return records


def reply_to(units: Sequence[ShownUnit], index: int) -> str | None:
    """The text of the unit after ``units[index]`` when another (known) speaker says it:
    the answer to a question, or a refusal. ``None`` for the last unit of the chunk."""
    if index + 1 >= len(units):
        return None
    unit, after = units[index], units[index + 1]
    if unit.speaker is None or after.speaker is None:
        return None
    return after.text if name_key(after.speaker) != name_key(unit.speaker) else None


class Cast(NamedTuple):
    """One cast of a text: the spell as the catalog (or the glossary) spells it, and who
    casts it (``None``: not said)."""

    spell: str
    caster: str | None


def casts(
    text: str, rules: SpellRules, speaker: str | None = None, reply: str | None = None
) -> list[Cast]:
    """The casts of one text, in order of position. ``speaker``: the speaker's character,
    when the glossary's party knows them; ``reply``: the next unit's text when another
    speaker says it (``reply_to``)."""
    said = Utterance(text, speaker, reply)
    found: list[Found] = []
    if speaker is not None:  # a player's unit: the caster is not said (no "I")
        bare = bare_name(said, rules.forms)
        if bare is not None:
            found.append(bare)
    found.extend(casting_verbs(said, rules.matcher, rules.characters))
    if not OTHER_VERBS.isdisjoint(said.lowered):
        found.extend(other_verbs(said, rules.forms, rules.characters))
    found.extend(names_as_verbs(said, rules.forms))
    found.sort(key=lambda cast: cast.start)
    return [
        Cast(cast.spell, cast.caster) for cast in found if not refused(said.text, cast.end, reply)
    ]

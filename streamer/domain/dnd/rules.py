"""The built-in rules extractor of ``dnd/spell-casts`` (``engine: rules``): no model.

Version 7 (``dnd/spell-casts-rules@7``). A candidate is one of:

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
4. a *name said alone*: a player's unit (``spell_rules.players``: one the party lists, or
   without a party any speaker but the game master) that is a spoken name that is not an
   ordinary word and nothing else but a few leading words (``Oh yes, Hunter's Mark.``,
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

Version 4 adds (docs/extraction.md has an example of each): leave given by more replies
(``go for it``, ``yeah``, ``roll...``, ``make a ... roll``) and asked with a name used as a
verb (``Can I use my bonus action to Misty Step?``); plurals and counts (``three Magic
Missiles``); ``drop`` before an article or a count, ``hit ... with``, and a possessive
before a spell that is not kept up (``I send my Magic Missile out``); a name used as a
verb after a first-person preamble (``I'm going to use my bonus action to Misty Step``);
the game master's narration confirming a cast (``narration``: ``Stoneskin is placed on
you``, ``as the Hold Person takes hold``); a spell the catalog lacks after a casting verb,
as the transcript says it (``unlisted``: ``I cast Grand Column``). And it drops
suggestions, casts recalled and rules read aloud (``not_casts``), and a cast naming no
caster that repeats a spell found 6 to ``REPEAT_UNITS`` units before in the chunk.

Version 5 adds ``recast``/``re-cast`` and the other verbs' participles
(``I'm blasting a Sunbeam``), a name's words run together after a verb (``send a
firebolt``); and drops ``use the Mage Hand`` (a spell kept up, with ``the``), plans with
``we'll``/``at some point``; the past of a reason (``because I saw him do that once
before``) no longer makes a cast recalled.

Version 6 adds (``spell_rules.turns`` reads the turns around a unit): ``shoot`` with a
target after the name, ``unleash``, ``summon`` (a spell kept up too), ``give <spell> a
whirl``; fillers ``little``, ``all``, ``both``, ``of`` (four at most: ``fire all three of
the Scorching Ray balls``); an aside between dashes after ``cast`` (``cast-- fuck it--
Sanctuary``); ``would like to`` is no condition; a name said alone before a sound (``Wall
of Stone-- boom.``), and a name that is an ordinary word said alone when the game master
acknowledges it (``Shield.`` / ``All right.``) or with a gesture (``Oh, light!
(snaps)``). It drops a name said alone that picks an option its speaker named just
before, the group's plans (``let's``), and a cast the same caster takes back with
``instead`` within ``TAKEN_BACK_UNITS`` units.

Version 7: without a glossary's party, a name said alone counts from a player as it does
with one: any speaker but the game master (the session's speaker of the most units,
counted by a survey pass), whose label names one speaker (``ORION: Firebolt.`` in C1E001).

``caster``: the speaker's character when the statement is in the first person (in the
verb's clause, or its sentence when the clause names no subject; and for a question
asking leave); without a party in the glossary, the speaker as the transcript writes them
(the player); for the game master's narration, the party character named as the subject
(``Scanlan casts``, ``Scanlan throws``) or addressed before ``you`` in the sentence
(``Keyleth, you cast``): a character's name or one of its glossary aliases. Otherwise
``null`` (an imperative, a name said alone, a narration). Every caster given is one the
support check of normalization accepts (the unit's speaker saying ``I``, or the name).

Each candidate cites the one unit it was found in; the spell is written as the
catalog (or the glossary) spells it, a spell the catalog lacks as the transcript does.
Deterministic: by unit, then by position in the text.

The prefilter (``prefilter.WordGate``) hands the per-unit rules only the units whose words
hold a casting verb (``VERBS``), every word of a name form (``NameForms.by_words``) or a
form's words run together (``NameForms.joined``): every form other than after a casting
verb needs a name form; a reply is read from the whole chunk.
``SpellCastRules(prefilter=False)`` runs them on every unit, and gives the same candidates.

The rules' parts are in ``spell_rules``: the words of a text (``text``), the spell names
(``names``), the casts said with a verb (``verbs``) or without one (``verbless``), leave
asked and refused (``leave``), the caster (``caster``), the narration (``narration``),
names the catalog lacks (``unlisted``) and what is no cast (``not_casts``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, NamedTuple

from streamer.domain.dnd.gated_rules import GatedRules
from streamer.domain.dnd.normalization_specs import CAST_WINDOW_UNITS
from streamer.domain.dnd.party_names import party_name_forms
from streamer.domain.dnd.prefilter import WordGate
from streamer.domain.dnd.spell_catalog import ALIASES, srd_spells
from streamer.domain.dnd.spell_rules import players
from streamer.domain.dnd.spell_rules.leave import refused
from streamer.domain.dnd.spell_rules.names import ORDINARY_SPELLS, NameForms, SpellMatcher
from streamer.domain.dnd.spell_rules.narration import narrated
from streamer.domain.dnd.spell_rules.not_casts import not_a_cast
from streamer.domain.dnd.spell_rules.players import is_player
from streamer.domain.dnd.spell_rules.text import (
    APOSTROPHES,
    WORD,
    Found,
    Utterance,
    clause_before,
)
from streamer.domain.dnd.spell_rules.turns import (
    acknowledged,
    kept,
    named_in,
    reply_to,
    said_alone,
    said_before,
    takes_back,
)
from streamer.domain.dnd.spell_rules.verbless import bare_name, names_as_verbs
from streamer.domain.dnd.spell_rules.verbs import (
    OTHER_VERBS,
    VERBS,
    WHIRL,
    casting_verbs,
    given_a_whirl,
    other_verbs,
)
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

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

VERSION = "dnd/spell-casts-rules@7"
# A cast naming no caster whose spell a unit of the chunk gave at most this many units
# before is that cast again, no second candidate: a name said alone answering a question
# about it ("What level?" / "Third-level Fireball."), the game master's confirmation
# ("...you finish your spell, you cast unseen servant"). Normalization's window
# (CAST_WINDOW_UNITS, 5) joins what is nearer; these come further off: "Dispel magic."
# 17 units after "I'm gonna cast Dispel Magic", the confirmation 12 after the declaration.
REPEAT_UNITS = 20
# The names that are ordinary words a player may say alone as a cast the game master
# acknowledges ("Shield." / "All right."): not those said alone as an exclamation or an
# order to another ("Weird.", "Jump!", "Silence!")
SAID_ALONE = ORDINARY_SPELLS - {
    "Weird", "Jump", "Fly", "Slow", "Sleep", "Knock", "Wish", "Fear", "Silence", "Harm",
}  # fmt: skip
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
    ordinary: NameForms  # the names that are ordinary words: said alone, acknowledged
    spoken: NameForms  # every name: the options a speaker named
    characters: Mapping[str, str]  # name key of a party character's name form -> character
    gate: WordGate
    alone_gate: WordGate  # the words of ``ordinary``: the short units said alone

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
    forms = NameForms(plurals(verbless))
    ordinary = NameForms([(spoken, name) for spoken, name in pairs if spoken in SAID_ALONE])
    return SpellRules(
        SpellMatcher([*pairs, *glossary, *plurals(pairs)]),
        forms,
        ordinary,
        NameForms(pairs),
        party_name_forms(context),
        WordGate(
            (*VERBS, WHIRL),
            [*forms.by_words, *((j,) for j in forms.joined)],
            WORD,
            APOSTROPHES,
            FREQUENT_WORDS,
        ),
        WordGate((), ordinary.by_words, WORD, APOSTROPHES, FREQUENT_WORDS),
    )


def plurals(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs and their plurals, each spoken form with ``s`` (``two Fire Bolts``,
    ``three Magic Missiles``) unless it ends with one."""
    return [
        *pairs,
        *((f"{spoken}s", name) for spoken, name in pairs if spoken[-1:].lower() not in "s'"),
    ]


class SpellCastRules(GatedRules):
    """The rules extractor of ``dnd/spell-casts`` (a ``RulesExtractor``)."""

    version = VERSION

    def survey(self, units: Sequence[ShownUnit], context: RulesContext) -> None:
        """Count the session's speakers when there is no party (``players``)."""
        players.survey(units, context)

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        rules = SpellRules.of(context)
        chosen = sorted({*self.chosen(rules.gate, units), *said_alone(units, rules.alone_gate)})
        records: list[tuple[int, dict[str, Any]]] = []  # (index, record), in order
        before: list[tuple[int, str]] = []  # (index, spell) of the chunk's casts so far
        for index in chosen:
            unit = units[index]
            player = context.character_of(unit.speaker)
            # without a party, a first-person cast's caster is the speaker as written
            speaker = player if player is not None or context.party else unit.speaker
            recent = _repeated(before, index)
            reply = reply_to(units, index)
            found = casts(
                unit.text,
                rules,
                speaker,
                reply,
                alone=is_player(unit.speaker, context),
                recent=recent,
                options=partial(said_before, units, index, before),
            )
            before.extend((index, spell) for spell, _ in found)
            if found and takes_back(unit.text):
                records = kept(records, index, found)
            for spell, caster in found:
                reference = {"start_unit_id": unit.unit_id, "end_unit_id": unit.unit_id}
                record = {"spell": spell, "caster": caster, "source_refs": [reference]}
                records.append((index, record))
        return [record for _, record in records]


def _repeated(before: Sequence[tuple[int, str]], index: int) -> set[str]:
    """The spells found between ``CAST_WINDOW_UNITS`` and ``REPEAT_UNITS`` units before
    ``index`` and not nearer (what is nearer normalization joins into one record)."""
    near = {spell for at, spell in before if index - at <= CAST_WINDOW_UNITS}
    far = {spell for at, spell in before if index - at <= REPEAT_UNITS}
    return far - near


class Cast(NamedTuple):
    """One cast of a text: the spell as the catalog (or the glossary) spells it, and who
    casts it (``None``: not said)."""

    spell: str
    caster: str | None


def casts(
    text: str,
    rules: SpellRules,
    speaker: str | None = None,
    reply: str | None = None,
    *,
    alone: bool | None = None,
    recent: Collection[str] = (),
    options: Callable[[], Sequence[str]] | None = None,
) -> list[Cast]:
    """The casts of one text, in order of position. ``speaker``: who casts in the first
    person (the speaker's character, or without a party the speaker as written);
    ``reply``: the next unit's text when another speaker says it (``reply_to``);
    ``alone``: whether a name said alone counts (a party player's unit; default: when
    ``speaker`` is given); ``recent``: the spells the units before gave further off than
    normalization joins, within ``REPEAT_UNITS`` (a cast naming no caster that repeats
    one is that cast again: an answer, the game master's confirmation); ``options``: what
    the speaker said in the units just before (a name said alone that one of them names
    picks an option: no cast)."""
    said = Utterance(text, speaker, reply)
    found: list[Found] = []
    if speaker is not None if alone is None else alone:  # the caster is not said (no "I")
        bare = bare_name(said, rules.forms)
        if bare is None:  # "Shield." / "All right.", "Oh, light! (snaps)"
            bare = bare_name(said, rules.ordinary, heard=acknowledged(reply))
        if bare is not None and (
            options is None or bare.spell not in named_in(options(), rules.spoken)
        ):
            found.append(bare)
    found.extend(casting_verbs(said, rules.matcher, rules.characters))
    if not OTHER_VERBS.isdisjoint(said.lowered):
        found.extend(other_verbs(said, rules.forms, rules.characters))
    if WHIRL in said.lowered:
        found.extend(given_a_whirl(said, rules.matcher, rules.characters))
    found.extend(names_as_verbs(said, rules.forms))
    found.extend(narrated(said, rules.forms))
    found.sort(key=lambda cast: cast.start)
    text = said.text
    return [
        Cast(cast.spell, cast.caster)
        for cast in found
        if not (cast.caster is None and cast.spell in recent)
        and not refused(text, cast.end, reply)
        and not not_a_cast(text, cast.start, cast.end, clause_before(text, cast.start))
    ]

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
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from streamer.domain.dnd.prefilter import WordGate
from streamer.domain.dnd.spell_catalog import (
    ALIASES,
    ARTICLES,
    loose_key,
    match_key,
    srd_spells,
)
from streamer.framework.kinds.extraction import RulesContext, ShownUnit
from streamer.framework.names import name_key

VERSION = "dnd/spell-casts-rules@3"
SPELLS_SECTION = "spells"  # the glossary's spell aliases: {"Tiny Hut": [hut, "the dome"]}
LONGEST_NAME_WORDS = 8  # the longest catalog name (6 words) and two articles
MAX_FILLERS = 3
CLAUSE_WORDS = 8

# Catalog names that are ordinary words or phrases: never read without a casting verb.
ORDINARY_SPELLS = frozenset(
    {
        "Aid", "Alarm", "Augury", "Awaken", "Bane", "Bless", "Blight", "Blink", "Blur",
        "Clairvoyance", "Clone", "Command", "Commune", "Compulsion", "Confusion",
        "Contagion", "Contingency", "Control Water", "Control Weather", "Creation",
        "Darkness", "Darkvision", "Daylight", "Demiplane", "Divination", "Dream",
        "Earthquake", "Enthrall", "Entangle", "Fabricate", "Fear", "Find Traps",
        "Find the Path", "Fly", "Forbiddance", "Foresight", "Gate", "Geas", "Glibness",
        "Grease", "Guidance", "Hallow", "Harm", "Haste", "Heal", "Heroism", "Hex",
        "Identify", "Imprisonment", "Invisibility", "Jump", "Knock", "Legend Lore",
        "Levitate", "Light", "Locate Animals or Plants", "Locate Creature",
        "Locate Object", "Magic Aura", "Magic Weapon", "Major Image", "Maze", "Mending",
        "Message", "Mislead", "Move Earth", "Plant Growth", "Project Image",
        "Regenerate", "Reincarnate", "Resistance", "Resurrection", "Sanctuary",
        "Scrying", "Seeming", "Sending", "Sequester", "Shatter", "Shield", "Silence",
        "Silent Image", "Sleep", "Slow", "Spare the Dying", "Speak with Animals",
        "Speak with Dead", "Speak with Plants", "Suggestion", "Symbol", "Telekinesis",
        "Teleport", "Tongues", "True Seeing", "True Strike", "Tsunami", "Water Breathing",
        "Water Walk", "Weird", "Web", "Wind Walk", "Wish", "counter spell",
    }
)  # fmt: skip

_WORD = re.compile(r"[\w']+(?:-[\w']+)*")
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
# The casting verbs (whole words, any case of their ASCII letters): the prefilter reads them
VERBS = ("cast", "casts", "casting")
_VERB = re.compile(
    r"(?<![\w'-])("
    + "|".join(
        "".join(f"[{letter.upper()}{letter}]" for letter in verb)
        for verb in sorted(VERBS, key=len, reverse=True)
    )
    + r")(?![\w'-])"
)
# The other verbs players and game masters cast with ("I'll throw a Healing Word to him",
# "send a Fire Bolt at it", "I'm going to use Vicious Mockery"): only before a name that is
# not an ordinary word, and never before a possessive ("send my spiritual weapon" moves a
# spell already up).
_OTHER_VERBS = frozenset(
    [
        "use",
        "uses",
        "throw",
        "throws",
        "send",
        "sends",
        "fire",
        "fires",
        "release",
        "releases",
        "do",
    ]
)
_POSSESSIVES = frozenset(["my", "his", "her", "their", "our", "your", "its"])
_PARTICLES = frozenset(["out", "off", "forth"])
_CLAUSE_BREAK = re.compile('[.!?;:,"()\\[\\]]|\\s-\\s|\u2014|\u2013')
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_SENTENCE_END = re.compile(r"[.!?]")
_LEVEL = re.compile(r"\w+-level|level-\d")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FILLERS = _words(
    "a an the my his her their our another one some this that it up again also then "
    "level lvl first second third fourth fifth sixth seventh eighth ninth 1st 2nd "
    "3rd 4th 5th 6th 7th 8th 9th 1 2 3 4 5 6 7 8 9"
)
_BLOCKERS = _words(
    "can can't cannot couldn't could should shouldn't would wouldn't might may must "
    "don't doesn't didn't won't not never no if when whenever unless until before "
    "after whether do does did able how why what "
    # attempts and failures, and what was only meant: not casts
    "try tries tried trying attempt attempts attempted attempting fail fails failed "
    "failing was were forgot forget glad almost nearly "
    # hedges: a choice not yet made ("I guess I'll do Healing Word")
    "guess maybe probably perhaps"
)
_NOUN_BEFORE = frozenset({"the", "a", "your", "whole", "entire"})
_FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i'd"})
_OTHER_SUBJECTS = _words(
    "you he she they we it who you're he's she's they're we're it's you'll he'll "
    "she'll they'll we'll"
)
_YOU = frozenset({"you", "you're", "you've", "you'll"})
_ADVERBS = _words("just then also now quickly immediately instantly")
# What may stand before a spell name used as a verb in the first person
_FIRST_PERSON_LEADS = (
    ("i",),
    ("i'll",),
    ("i", "will"),
    ("i'm", "going", "to"),
    ("i", "am", "going", "to"),
    ("i'm", "gonna"),
)
# ... before an imperative at the start of its clause, and the target that must follow it
_IMPERATIVE_LEADS = _words("and then so okay ok yes yeah also now just first")
_TARGET_ADVERBS = _words("right directly straight")
_TARGETS = _words(
    "on at onto into him her it them us me myself yourself himself herself itself "
    "themselves ourselves"
)
# What a spell's name said alone may start with ("Oh yes, Hunter's Mark.")
_BARE_LEADS = _words("oh yes yeah yep okay ok um uh so well and then just")
# A question asking leave ("Can I fire Eldritch Blast...?"), and the game master's leave
_ASKING = frozenset({("can", "i"), ("may", "i"), ("could", "i")})
_MODALS = frozenset({"can", "may", "could"})
_LEAVE_LEADS = (("you", "can"), ("you", "may"), ("yes",), ("yep",), ("sure",), ("go", "ahead"))
_NOT_LEAVE = _words("but not no can't cannot try unfortunately")
# The game master refusing a cast, in the rest of its unit or the next one
_REFUSALS = (
    ("you", "can't"),
    ("you", "cannot"),
    ("you", "don't", "have"),
    ("you", "do", "not", "have"),
)
# a name followed by one of these speaks of the spell, not of casting it
_NOT_AFTER = _words("damage slot")


class SpellMatcher:
    """Which known spell a run of words names: ``match(words)`` is the canonical name and
    the number of words it took (the longest name that fits), or ``None``.

    ``names`` are (spoken form, canonical name) pairs. A run matches a form when their
    match keys are equal, or their loose keys (articles dropped); a run opening with a
    possessive (``Tasha's``) is also read without it."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        self._by_key: dict[str, str] = {}
        self._by_loose: dict[str, str] = {}
        longest = 1
        for spoken, canonical in names:
            self._by_key.setdefault(match_key(spoken), canonical)
            self._by_loose.setdefault(loose_key(spoken), canonical)
            longest = max(longest, len(_WORD.findall(spoken)))
        self._longest = min(longest + 2, LONGEST_NAME_WORDS)

    def match(self, words: Sequence[str]) -> tuple[str, int] | None:
        found = self._match(words)
        if found is None and len(words) > 1 and _is_possessive(words[0]):
            after = self._match(words[1:])
            if after is not None:
                return after[0], after[1] + 1
        return found

    def _match(self, words: Sequence[str]) -> tuple[str, int] | None:
        # a run's keys are its words' keys joined: the space between two words neither
        # composes (NFKC) nor is a letter, so each word is keyed once, not once a run
        longest = min(self._longest, len(words))
        keys = [match_key(word) for word in words[:longest]]
        looses: list[str] | None = None
        for size in range(longest, 0, -1):
            if words[size - 1].lower() in ARTICLES:
                continue
            name = self._by_key.get("".join(keys[:size]))
            if name is None:
                if looses is None:
                    looses = [loose_key(word) for word in words[:longest]]
                name = self._by_loose.get("".join(looses[:size]))
            if name is not None:
                return name, size
        return None


def _is_possessive(word: str) -> bool:
    return len(word) > 2 and word[-2:].lower() == "'s"


class NameForms:
    """Spell names said without a casting verb: each form's words, lower-cased, without
    the articles, and its canonical name (``by_words``: what the prefilter reads)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        self.by_words: dict[tuple[str, ...], str] = {}
        self.joined: dict[str, str] = {}  # the words run together: "firebolt"
        self.firsts: set[str] = set()
        sizes: dict[str, set[int]] = {}  # first word -> the lengths of its forms
        longest = 1
        for spoken, canonical in names:
            words = tuple(w for w in _WORD.findall(spoken.lower()) if w not in ARTICLES)
            if not words:
                continue
            self.by_words.setdefault(words, canonical)
            self.joined.setdefault("".join(words), canonical)
            self.firsts.add(words[0])
            sizes.setdefault(words[0], set()).add(len(words))
            longest = max(longest, len(words))
        self.longest = longest + 2  # articles inside
        self._sizes = {first: sorted(found, reverse=True) for first, found in sizes.items()}

    def at(self, lowered: Sequence[str], start: int) -> tuple[str, int] | None:
        """The form starting at ``lowered[start]`` (a possessive before it included): its
        canonical name and the index after its last word."""
        found = self._at(lowered, start)
        if found is None and _is_possessive(lowered[start]) and start + 1 < len(lowered):
            found = self._at(lowered, start + 1)
        return found

    def whole(self, lowered: Sequence[str]) -> str | None:
        """The canonical name when ``lowered`` is exactly one form, or one word that is a
        form's words run together (``firebolt``: it holds every word of the form)."""
        if not lowered:
            return None
        found = self.at(lowered, 0)
        if found is not None and found[1] == len(lowered):
            return found[0]
        return self.joined.get(lowered[0]) if len(lowered) == 1 else None

    def _at(self, lowered: Sequence[str], start: int) -> tuple[str, int] | None:
        sizes = self._sizes.get(lowered[start])
        if sizes is None:
            return None
        stop = min(len(lowered), start + self.longest)
        window = lowered[start:stop]
        if ARTICLES.isdisjoint(window):  # a form's words are the window's first ones
            for size in sizes:  # the longest first
                if size <= len(window):
                    name = self.by_words.get(tuple(window[:size]))
                    if name is not None:
                        return name, start + size
            return None
        for end in range(stop, start, -1):
            if lowered[end - 1] in ARTICLES:
                continue
            words = tuple(w for w in lowered[start:end] if w not in ARTICLES)
            name = self.by_words.get(words)
            if name is not None:
                return name, end
        return None


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
            _WORD,
            _APOSTROPHES,
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


def casts(
    text: str, rules: SpellRules, speaker: str | None = None, reply: str | None = None
) -> list[tuple[str, str | None]]:
    """The casts of one text, in order of position: (canonical spell, caster or None).
    ``speaker``: the speaker's character, when the glossary's party knows them; ``reply``:
    the next unit's text when another speaker says it (``reply_to``)."""
    found: list[tuple[int, int, str, str | None]] = []  # (start, end, spell, caster)
    text = text.translate(_APOSTROPHES)
    # the words, read once, by every form but the casting verb's (their positions only
    # once a name is found); lower-casing leaves an ASCII text's words where they are
    if text.isascii():
        lowered = _WORD.findall(text.lower())
    else:
        lowered = [word.lower() for word in _WORD.findall(text)]
    words = _Words(text)
    if speaker is not None:  # a player's unit: the caster is not said (no "I")
        bare = _bare_name(text, lowered, rules)
        if bare is not None:
            found.append((0, len(text), bare, None))
    for verb in _VERB.finditer(text):
        before = _clause_before(text, verb.start())
        if before and before[-1] in _NOUN_BEFORE:
            continue
        asked = _asked(text, verb.start(), verb.end(), before, reply)
        if asked is None:
            continue
        spell = _spell_after(text, verb.end(), rules.matcher)
        if spell is None:
            continue
        word = verb.group(1).lower()
        caster = (
            speaker
            if asked
            else _caster(word, word == "casts", text, verb.start(), before, rules, speaker)
        )
        found.append((verb.start(), verb.end(), spell, caster))
    if not _OTHER_VERBS.isdisjoint(lowered):
        found.extend(_other_verbs(text, words, lowered, rules, speaker, reply))
    found.extend(_names_as_verbs(text, words, lowered, rules, speaker))
    found.sort(key=lambda item: item[0])
    return [(spell, caster) for _, end, spell, caster in found if not _refused(text, end, reply)]


class _Words:
    """The words of a text (``_WORD``) as matches, by index: found when first asked."""

    __slots__ = ("_found", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._found: list[re.Match[str]] | None = None

    def __getitem__(self, index: int) -> re.Match[str]:
        if self._found is None:
            self._found = list(_WORD.finditer(self._text))
        return self._found[index]


def _caster(
    word: str,
    third: bool,
    text: str,
    start: int,
    before: list[str],
    rules: SpellRules,
    speaker: str | None,
) -> str | None:
    """Who casts, by the verb's person: ``I`` is the speaker, a third person verb its named
    subject, ``you`` the character addressed; otherwise nobody said."""
    if not third and _first_person(before):
        return speaker
    if third:
        return _named_subject(before, rules.characters)
    if _second_person(before):
        return _addressed(text, start, rules.characters)
    return None


def _asked(text: str, start: int, end: int, before: list[str], reply: str | None) -> bool | None:
    """``False`` for a statement that may be a cast, ``True`` for a question asking leave
    in the first person that the reply gives ("Can I fire Eldritch Blast...?" "You
    can."), ``None`` for anything else that blocks it (a negation, a modal, a condition,
    an attempt, a question)."""
    blocked = _BLOCKERS.intersection(before)
    question = _is_question(text, end)
    if not blocked and not question:
        return False
    if reply is None or not question or not blocked <= _MODALS:
        return None
    words = _sentence_before(text, start)
    if not any(pair in _ASKING for pair in itertools.pairwise(words)):
        return None
    return True if _gives_leave(reply) else None


def _sentence_before(text: str, end: int) -> list[str]:
    head = text[max(0, end - 200) : end]
    ends = list(_SENTENCE_END.finditer(head))
    if ends:
        head = head[ends[-1].end() :]
    return [word.lower() for word in _WORD.findall(head)]


def _first_sentence(text: str) -> list[str]:
    text = text.translate(_APOSTROPHES)
    stop = _SENTENCE_END.search(text)
    head = text if stop is None else text[: stop.start()]
    return [word.lower() for word in _WORD.findall(head)]


def _gives_leave(reply: str) -> bool:
    """The reply's first sentence opens with leave ("You can.", "Yes, you may.", "Sure.",
    "Go ahead") and holds no ``but``, ``not``, ``try``...; or it is ``Okay.`` and the next
    one says go ahead ("Okay. Go ahead and roll...")."""
    words = _first_sentence(reply)
    if words in (["okay"], ["ok"], ["all", "right"], ["alright"]):
        rest = reply.translate(_APOSTROPHES)
        stop = _SENTENCE_END.search(rest)
        words = _first_sentence(rest[stop.end() :]) if stop is not None else []
        return words[:2] == ["go", "ahead"] and not _NOT_LEAVE.intersection(words)
    opens = any(tuple(words[: len(lead)]) == lead for lead in _LEAVE_LEADS)
    return opens and not _NOT_LEAVE.intersection(words)


def _refused(text: str, end: int, reply: str | None) -> bool:
    """A refusal after the cast: in the sentences after it in its unit ("I cast stoneskin
    on myself. You don't have that much time"), or in the reply's first sentence ("Mage
    Hand is an action to cast, so you can't hold--")."""
    stop = _SENTENCE_END.search(text, end)
    rest = [] if stop is None else [w.lower() for w in _WORD.findall(text[stop.end() :])]
    if _holds(rest, _REFUSALS):
        return True
    return reply is not None and _holds(_first_sentence(reply), _REFUSALS)


def _holds(words: list[str], phrases: Iterable[tuple[str, ...]]) -> bool:
    return any(
        tuple(words[i : i + len(phrase)]) == phrase
        for phrase in phrases
        for i in range(len(words) - len(phrase) + 1)
    )


def _bare_name(text: str, lowered: list[str], rules: SpellRules) -> str | None:
    """A unit that says a spell's name and nothing else, after a few leading words ("Oh
    yes, Hunter's Mark.", "Firebolt."): the player naming what they cast. Not a question,
    not an ordinary word, not a glossary alias."""
    if "?" in text:
        return None
    start = 0
    while start < len(lowered) and lowered[start] in _BARE_LEADS:
        start += 1
    return rules.forms.whole(lowered[start:])


def _other_verbs(
    text: str,
    words: _Words,
    lowered: list[str],
    rules: SpellRules,
    speaker: str | None,
    reply: str | None,
) -> list[tuple[int, int, str, str | None]]:
    """``use``, ``throw``, ``send``, ``fire``, ``release``, ``do`` before a name
    that is not an ordinary word, after at most a particle (``out``) and a few fillers but
    no possessive; not when ``damage`` or ``slot`` follows the name."""
    found: list[tuple[int, int, str, str | None]] = []
    for index, word in enumerate(lowered):
        if word not in _OTHER_VERBS:
            continue
        at = index + 1
        if at < len(lowered) and lowered[at] in _PARTICLES:
            at += 1
        skipped = 0
        while (
            at < len(lowered)
            and skipped < MAX_FILLERS
            and lowered[at] not in _POSSESSIVES
            and _is_filler(lowered[at])
            and lowered[at] not in rules.forms.firsts
        ):
            at += 1
            skipped += 1
        if at >= len(lowered) or lowered[at] in _POSSESSIVES:
            continue
        match = rules.forms.at(lowered, at)
        if match is None:
            continue
        spell, end = match
        if end < len(lowered) and lowered[end] in _NOT_AFTER:
            continue
        if _CLAUSE_BREAK.search(text, words[index].end(), words[at].start()):
            continue
        start = words[index].start()
        before = _clause_before(text, start)
        asked = _asked(text, start, words[end - 1].end(), before, reply)
        if asked is None:
            continue
        third = word.endswith("s") and word != "does"
        caster = speaker if asked else _caster(word, third, text, start, before, rules, speaker)
        found.append((start, words[end - 1].end(), spell, caster))
    return found


def _names_as_verbs(
    text: str,
    words: _Words,
    lowered: list[str],
    rules: SpellRules,
    speaker: str | None,
) -> list[tuple[int, int, str, str | None]]:
    found: list[tuple[int, int, str, str | None]] = []
    firsts = rules.forms.firsts
    index = 0  # the first word after the last name found
    # the words ``at`` may read a name from: a name's first word, or a possessive
    for at in [i for i, w in enumerate(lowered) if w in firsts or (w[-2:] == "'s" and len(w) > 2)]:
        if at < index:
            continue
        index = at
        match = rules.forms.at(lowered, index)
        if match is None:
            continue
        spell, end = match
        start = words[index].start()
        stop = words[end - 1].end()
        before = _clause_before(text, start)
        after = lowered[end] if end < len(lowered) else None
        if after in _TARGET_ADVERBS and end + 1 < len(lowered):
            after = lowered[end + 1]
        if not _BLOCKERS.intersection(before) and not _is_question(text, stop):
            if _first_person_lead(before):
                found.append((start, stop, spell, speaker))
            elif _imperative(before, after):  # no "I": the caster is not said
                found.append((start, stop, spell, None))
        index = end
    return found


def _first_person_lead(before: list[str]) -> bool:
    words = before[:-1] if before and before[-1] in _ADVERBS else before
    return any(tuple(words[-len(lead) :]) == lead for lead in _FIRST_PERSON_LEADS)


def _imperative(before: list[str], after: str | None) -> bool:
    """At the start of its clause (only a few leading words), then a target."""
    return after in _TARGETS and all(word in _IMPERATIVE_LEADS for word in before)


def _clause_before(text: str, end: int) -> list[str]:
    """The last words before ``end`` in the same clause, lower-cased."""
    start = max(0, end - 80)
    head = text[start:end]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    if breaks:
        head = head[breaks[-1].end() :]
    return [word.lower() for word in _WORD.findall(head)][-CLAUSE_WORDS:]


def _is_question(text: str, start: int) -> bool:
    end = _SENTENCE_END.search(text, start)
    return end is not None and end.group() == "?"


def _spell_after(text: str, start: int, matcher: SpellMatcher) -> str | None:
    tail = text[start : start + 160]
    stop = _CLAUSE_BREAK.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words = _WORD.findall(tail)
    for skipped in range(min(MAX_FILLERS, len(words)) + 1):
        if skipped and not _is_filler(words[skipped - 1]):
            break
        matched = matcher.match(words[skipped:])
        if matched is not None:
            return matched[0]
    return None


def _is_filler(word: str) -> bool:
    lower = word.lower()
    return lower in _FILLERS or _LEVEL.fullmatch(lower) is not None


def _first_person(before: list[str]) -> bool:
    """Whether the clause's subject is ``I``: the last subject-like word before the verb."""
    for word in reversed(before):
        if word in _FIRST_PERSON:
            return True
        if word in _OTHER_SUBJECTS:
            return False
    return False


def _second_person(before: list[str]) -> bool:
    for word in reversed(before):
        if word in _YOU:
            return True
        if word in _OTHER_SUBJECTS or word in _FIRST_PERSON:
            return False
    return False


def _named_subject(before: list[str], characters: Mapping[str, str]) -> str | None:
    """``Scanlan casts``: the party character named just before the verb (adverbs
    skipped), by one or two words."""
    words = list(before)
    while words and words[-1] in _ADVERBS:
        words.pop()
    for size in (2, 1):
        if len(words) >= size:
            found = characters.get(" ".join(words[-size:]))
            if found is not None:
                return found
    return None


_VOCATIVE = re.compile(r"([\w'-]+(?:\s+[\w'-]+)?)\s*,")


def _addressed(text: str, end: int, characters: Mapping[str, str]) -> str | None:
    """``Keyleth, you cast``: the party character addressed (a name and a comma) last
    before ``end`` in its sentence."""
    head = text[max(0, end - 160) : end]
    ends = list(_SENTENCE_END.finditer(head))
    if ends:
        head = head[ends[-1].end() :]
    found = None
    for vocative in _VOCATIVE.finditer(head):
        words = vocative.group(1).lower().split()
        for size in (2, 1):
            if len(words) >= size:
                name = characters.get(" ".join(words[-size:]))
                if name is not None:
                    found = name
                    break
    return found

"""The support check (ADR-0009): a record is accepted only when its cited units say what it
says. Generic: a kind names its textual and who-acts members in its ``NormalizationSpec``.

The words of a text: the text in NFKC, case-folded, every apostrophe form written ``'``
(``names.folded``), then its runs of letters and digits, an apostrophe between two letters
or digits kept inside the word (``Vex'ahlia's`` is one word; a hyphen, white space and
every other character separate words: ``half-elf`` is ``half elf``).

A member's value is *said* by a cited reference (for ``source_refs``, any one of them;
for a ``source_ref``, its range) when, in the words of the reference's units read in
order as one text:

1. the value's words occur in order, consecutive, as whole words; the one tolerance: a
   leading article of the value (``a``, ``an``, ``the``) may be absent, and a word may
   differ from the value's by one ending ``s``, ``es`` or ``'s`` (plural, possessive:
   ``Vex'ahlia's``, ``potions`` for ``potion``); or
2. the words of a known spelling occur so: for a name member, the glossary's name and
   aliases of its canonical name; for a catalog member, the catalog's spoken forms of its
   canonical value (the SRD catalog: the name and its aliases, ``Bigby's Hand`` for
   ``Arcane Hand``) and the aliases of the glossary's alias section of that member
   (``spells: {"Tiny Hut": ["the dome"]}``); and the value as a candidate of the lane gave
   it, before the glossary and the catalogs turned it into the canonical value; or
3. for a catalog member, a run of consecutive words (at most two more words than the
   longest spoken form has) that the catalog canonicalizes to the value (``fire ball``
   and ``fire-ball`` are ``Fireball``: the text is read as the candidate was); or
4. for a who-acts member (``actor_members``), a unit of the reference is spoken by the
   value (its speaker label, or the character the glossary's ``party`` gives that label,
   compared by name key after the glossary) and has a first-person word (``I``, ``I'm``,
   ``I'll``, ``I'd``, ``I've``, ``me``, ``my``, ``mine``, ``myself``).

Nothing else: no fuzzy matching. A value addressed by name (``Keyleth, you cast Greater
Restoration``) is rule 1. ``null`` is never checked.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from streamer.framework.kinds.normalization_spec import Catalog, NormalizationSpec, SpokenCatalog
from streamer.framework.names import folded, name_key
from streamer.framework.party import Party
from streamer.normalization.collapse import Ref
from streamer.normalization.names import Names

ARTICLES = frozenset({"a", "an", "the"})
ENDINGS = ("s", "es", "'s")
FIRST_PERSON = frozenset({"i", "i'm", "i'll", "i'd", "i've", "me", "my", "mine", "myself"})
EXTRA_WORDS = 2  # a catalog run may have this many more words than the spoken form

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def words(text: str) -> tuple[str, ...]:
    """The words of ``text``, as the check compares them."""
    return tuple(_WORD.findall(folded(text)))


def value_words(value: str) -> tuple[str, ...]:
    """The words of a value, a leading article dropped (unless it is the only word)."""
    found = words(value)
    return found[1:] if len(found) > 1 and found[0] in ARTICLES else found


def same_word(spoken: str, value: str) -> bool:
    """Whether a word of the text says a word of the value: equal, or one ending apart."""
    if spoken == value:
        return True
    longer, shorter = (spoken, value) if len(spoken) > len(value) else (value, spoken)
    return any(longer == shorter + ending for ending in ENDINGS)


@functools.lru_cache(maxsize=1 << 14)
def word_forms(value: str) -> frozenset[str]:
    """Every word ``same_word`` takes for ``value``: itself, with one ending more, or with
    one of its endings less."""
    forms = {value, *(value + ending for ending in ENDINGS)}
    forms.update(value[: -len(ending)] for ending in ENDINGS if value.endswith(ending))
    return frozenset(forms)


Phrase = tuple[frozenset[str], ...]  # the forms of each word of a phrase (``word_forms``)


def phrase_forms(phrase: Sequence[str]) -> Phrase:
    return tuple(word_forms(word) for word in phrase)


def says(text: Sequence[str], phrase: Sequence[str]) -> bool:
    """Whether ``phrase`` occurs in ``text`` as consecutive whole words (``same_word``)."""
    return says_forms(text, phrase_forms(phrase))


def says_forms(text: Sequence[str], forms: Phrase) -> bool:
    """``says``, the phrase given as the forms of its words (``phrase_forms``): a word of
    the text says a word of the phrase when it is one of its forms."""
    if not forms:
        return False
    first = forms[0]
    if first.isdisjoint(text):
        return False
    rest = forms[1:]
    for start in range(len(text) - len(forms) + 1):
        if text[start] in first and all(
            text[start + offset] in words for offset, words in enumerate(rest, 1)
        ):
            return True
    return False


def says_canonical(text: Sequence[str], value: str, longest: int, catalog: Catalog) -> bool:
    """Whether a run of at most ``longest`` consecutive words of ``text`` is one the
    catalog canonicalizes to ``value``."""
    canonical = catalog.canonical
    for start in range(len(text)):
        for end in range(start + 1, min(len(text), start + longest) + 1):
            if canonical(" ".join(text[start:end])) == value:
                return True
    return False


@dataclass(frozen=True)
class CitedUnit:
    """What the check reads of a cited unit: its text and its speaker (``None``: none)."""

    text: str
    speaker: str | None

    @cached_property
    def words(self) -> tuple[str, ...]:
        """The words of its text (read once, whichever ranges hold the unit)."""
        return words(self.text)


Claim = tuple[str, str]  # (member, value)
Pair = tuple[str, str]  # (start unit ID, end unit ID) of a reference


class Support:
    """The support check of one lane, in three steps, so that no transcript is held:
    ``expect`` each candidate's claims (its textual members, canonical, and the unit IDs
    of its references) before the source pass; ``read`` each cited range as the pass
    reaches its end (its units, then forgotten); then ``unsupported(members, refs)`` is
    the first textual member (in the kind's order) none of its references says, or
    ``None``.

    ``party``: the character each speaker plays."""

    def __init__(
        self,
        spec: NormalizationSpec,
        names: Names,
        party: Party,
        aliases: Mapping[str, Names] | None = None,
    ) -> None:
        self._spec = spec
        self._names = names
        self._aliases = aliases or {}
        self._party = party
        self._claims: dict[Pair, set[Claim]] = {}
        self._said: set[tuple[Pair, Claim]] = set()
        self._given: dict[Claim, set[str]] = {}  # spellings candidates gave a claim's value
        self._known: dict[Claim, tuple[list[Phrase], int]] = {}  # ``_phrases``
        self._speakers: dict[str, set[str]] = {}  # ``_speaker_keys``
        self._spoken = {  # a protocol check is slow: once
            member: catalog
            for member, catalog in spec.catalogs.items()
            if isinstance(catalog, SpokenCatalog)
        }

    @property
    def pairs(self) -> Iterable[Pair]:
        """The cited ranges the check must read."""
        return self._claims.keys()

    def expect(
        self,
        members: Mapping[str, Any],
        pairs: Iterable[Pair],
        spoken: Mapping[str, Any] | None = None,
    ) -> None:
        """Record what a candidate claims: its canonical ``members`` citing ``pairs``;
        ``spoken``: its members as the candidate gave them (before the glossary and the
        catalogs), each also a spelling of its canonical value."""
        claims = [
            (member, value)
            for member in self._spec.textual_members
            if isinstance(value := members.get(member), str)
        ]
        for pair in pairs:
            self._claims.setdefault(pair, set()).update(claims)
        for claim in claims:
            given = (spoken or {}).get(claim[0])
            if isinstance(given, str) and given != claim[1]:
                self._given.setdefault(claim, set()).add(given)

    def read(self, pair: Pair, units: Sequence[CitedUnit]) -> None:
        """Check the claims citing ``pair`` against its ``units``, in document order."""
        claims = self._claims.get(pair)
        if not claims:
            return
        text = tuple(word for unit in units for word in unit.words)
        for claim in claims:
            if self._said_by(claim, text, units):
                self._said.add((pair, claim))

    def unsupported(self, members: Mapping[str, Any], refs: Sequence[Ref]) -> str | None:
        said = self._said
        for member in self._spec.textual_members:
            value = members.get(member)
            if isinstance(value, str) and not any(
                ((ref.start_unit_id, ref.end_unit_id), (member, value)) in said for ref in refs
            ):
                return member
        return None

    def _phrases(self, claim: Claim) -> tuple[list[Phrase], int]:
        """The phrases that say ``claim`` (as ``says_forms`` reads them) and the longest
        run of words the catalog rule reads; made once a claim, when its first range is
        read (every candidate has been expected by then)."""
        known = self._known.get(claim)
        if known is not None:
            return known
        member, value = claim
        spec = self._spec
        phrases = [value_words(value)]
        phrases.extend(value_words(given) for given in sorted(self._given.get(claim, ())))
        if member in spec.name_members:
            phrases.extend(value_words(key) for key in self._names.spellings(value))
        spoken = self._spoken.get(member)
        if spoken is not None:
            phrases.extend(value_words(form) for form in spoken.spoken_forms(value))
        section = spec.glossary_aliases.get(member)
        if section is not None and section in self._aliases:
            phrases.extend(value_words(key) for key in self._aliases[section].spellings(value))
        longest = max(len(phrase) for phrase in phrases) + EXTRA_WORDS
        known = self._known[claim] = ([phrase_forms(phrase) for phrase in phrases], longest)
        return known

    def _said_by(self, claim: Claim, text: Sequence[str], units: Sequence[CitedUnit]) -> bool:
        member, value = claim
        spec = self._spec
        phrases, longest = self._phrases(claim)
        if any(says_forms(text, phrase) for phrase in phrases):
            return True
        catalog = spec.catalogs.get(member)
        if catalog is not None and says_canonical(text, value, longest, catalog):
            return True
        return member in spec.actor_members and self._speaks(value, units)

    def _speaks(self, value: str, units: Sequence[CitedUnit]) -> bool:
        """Whether one of ``units`` is spoken by ``value`` in the first person."""
        wanted = name_key(value)
        for unit in units:
            if unit.speaker is None or wanted not in self._speaker_keys(unit.speaker):
                continue
            if not FIRST_PERSON.isdisjoint(unit.words):
                return True
        return False

    def _speaker_keys(self, speaker: str) -> set[str]:
        keys = self._speakers.get(speaker)
        if keys is None:
            keys = {name_key(self._names.canonical(speaker))}
            character = self._party.character_of(speaker)
            if character is not None:
                keys.add(name_key(self._names.canonical(character)))
            self._speakers[speaker] = keys
        return keys


class CitedRanges:
    """The cited ranges of every lane's support check, read in one source pass: ``ranges``
    (start unit ID -> end unit IDs) for the pass, ``read`` hands each range to the checks."""

    def __init__(self, checks: Iterable[Support]) -> None:
        self._checks = list(checks)
        self.ranges: dict[str, set[str]] = {}
        for check in self._checks:
            for start, end in check.pairs:
                self.ranges.setdefault(start, set()).add(end)

    def read(self, pair: Pair, units: Sequence[CitedUnit]) -> None:
        for check in self._checks:
            check.read(pair, units)

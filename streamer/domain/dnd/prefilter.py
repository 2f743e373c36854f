"""The rules' prefilter: which units of a block can hold what a rule looks for.

The per-unit rules cost some microseconds of Python a unit, and fewer than one unit in a
hundred holds a cast or a name. A gate looks at a whole block of units at once (one chunk:
their texts joined by NUL, lower-cased in one call, one Aho-Corasick pass) and returns the
indices of the units that can hold a match: only those reach the per-unit rules.

- ``Gate(keywords)``: the units holding one of the *keywords* (lower-case substrings of the
  text lower-cased). The NPC rules' gate: each name's first word.
- ``WordGate(words, phrases, pattern, fold, frequent)``: the units whose *words* (what the rules
  read: ``pattern`` over the text with ``fold`` applied, each word lower-cased) hold one of
  ``words``, or every word of one of ``phrases``. The spell rules' gate: their declared
  casting verbs, and the words of every spoken form of the catalog they read without a
  verb. It is a ``Gate`` over one *anchor* a word or phrase (its longest run of letters and
  digits, which the block lower-cased holds wherever a unit's words hold the word), then,
  for the units that gate picks only, their words compared with the declared ones.

A gate changes no result when every unit its rules can find something in holds what it is
given: ``tests/test_rules_prefilter.py`` checks that the prefiltered rules give exactly the
candidates of the same rules run on every unit, on the CRD3 episodes and on generated
text, and each gate against a brute-force reference.

The keywords are found in one pass over the block whatever their number: by Hyperscan
(``hyperscan``: literals, SIMD) in ``WordGate``'s pass over units in ASCII (the bulk of
the work), by an Aho-Corasick automaton (``pyahocorasick``) in the others (measured against
each other and one combined regular expression in ``benchmarks/rules_bench.py``;
docs/extraction.md has the figures).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

import ahocorasick

if TYPE_CHECKING:  # imported where a database is compiled: not at every command's start-up
    import hyperscan

SEPARATOR = "\x00"
_SIGMAS = "\u03c3\u03c2"  # the lower-case sigma's form depends on the letters around it


class Gate:
    """The units of a block that hold one of ``keywords`` (lower-case, non-empty, without
    NUL), by one Aho-Corasick pass over the block."""

    def __init__(self, keywords: Iterable[str]) -> None:
        self.keywords = tuple(sorted(set(keywords)))
        self._automaton = _automaton(self.keywords)

    def units(self, texts: Sequence[str]) -> list[int]:
        """The indices (ascending) of the texts holding a keyword."""
        return list(_scan(self._automaton, texts).found)


class WordGate:
    """The units of a block whose words hold one of ``words`` or every word of one of
    ``phrases``. A unit's words are ``pattern.findall(text.translate(fold))`` (``pattern``
    has no group), each lower-cased; ``words`` and the phrases' words are lower-case and each
    one whole match of ``pattern`` (any other could never be found).

    First the block's pass, one of two:

    - the units in ASCII (and without NUL), when ``pattern`` is ``WORD`` (the rules'
      words: letters, digits, ``_`` and ``'``, joined by ``-``): the block lower-cased,
      each other character a space (``fold`` applied first), each unit between spaces, so
      that every word stands between two spaces: the pass (Hyperscan, on the block in
      bytes) looks for the declared words and each phrase's rarest word that way
      (`` hideous ``), whole, and a unit holding a phrase's rarest word is then asked for
      its other words, whole, by substring. A phrase's rarest word is the one said least
      often by ``frequent`` (words said often, most first: any other is rarer), then the
      longest; any word would give the same units, a rare one fewer checks. What the pass
      picks is then exact, but for a text joining two words by ``-`` (one word to
      ``pattern``, two to the pass);
    - the others: a unit can hold a word only where the block lower-cased holds the word's
      *anchor* (its longest run of letters and digits that lower-casing in context and
      ``fold`` leave alone); the pass looks for the anchors of the words and of each
      phrase's longest word, and a unit holding one is then asked for the anchors of the
      phrase's other words.

    Then the words of the units that can hold something (but those the spaced pass picked
    exactly) are compared with the declared ones, unit by unit."""

    def __init__(
        self,
        words: Iterable[str],
        phrases: Iterable[Sequence[str]],
        pattern: re.Pattern[str],
        fold: Mapping[int, str] | None = None,
        frequent: Sequence[str] = (),
    ) -> None:
        if pattern.groups:
            raise ValueError("the word pattern has no group")
        self.words = frozenset(words)
        self.phrases = frozenset(frozenset(phrase) for phrase in phrases)
        self._pattern = pattern
        self._fold = dict(fold or {})
        self._ascii_folds = any(key < 128 for key in self._fold)
        for word in self.words.union(*self.phrases):
            if word != word.lower() or pattern.fullmatch(word) is None:
                raise ValueError("a word is lower-case and one whole word of the pattern")
        if frozenset() in self.phrases:
            raise ValueError("a phrase has a word")
        folded = "".join(self._fold.values())
        unstable = set(_SIGMAS + folded + folded.lower())

        def anchor(word: str) -> str:
            return _anchor(word, unstable)

        by_word: dict[str, list[frozenset[str]]] = {}
        others: dict[str, set[tuple[str, ...]]] = {}
        for phrase in self.phrases:
            # the longest word, so the rarest (a guess: any would be right)
            first = max(phrase, key=lambda word: (len(anchor(word)), word))
            by_word.setdefault(first, []).append(phrase)
            rest = {anchor(word) for word in phrase} - {anchor(first), ""}
            others.setdefault(anchor(first), set()).add(tuple(sorted(rest)))
        self._phrases_of = {
            word: tuple(sorted(found, key=sorted)) for word, found in by_word.items()
        }
        self._anchor_words = frozenset(by_word)
        self._word_anchors = frozenset(map(anchor, self.words))
        self._others = {key: tuple(sorted(found)) for key, found in others.items()}
        # the anchors the block's pass looks for; without one for everything, every unit
        # is compared
        self.keywords = tuple(sorted(self._word_anchors.union(self._others)))
        self._automaton = None if "" in self.keywords else _automaton(self.keywords)
        self._spaced = _Spaced.of(self, pattern, self._fold, frequent)

    def units(self, texts: Sequence[str]) -> list[int]:
        """The indices (ascending) of the texts whose words hold a word or a phrase."""
        spaced = self._spaced
        if spaced is None:
            picked = self._anchored(texts)
        else:
            joined = PADDED.join(texts)
            if joined.isascii() and joined.count(SEPARATOR) == len(texts) - 1:
                # every text in ASCII without NUL (the usual block): the spaced pass is
                # exact but for a text joining words by ``-``
                return [
                    index
                    for index in spaced.units(joined)
                    if not spaced.joins(texts[index]) or self.holds(texts[index])
                ]
            plain = [text.isascii() and SEPARATOR not in text for text in texts]
            ones = [text if ok else "" for text, ok in zip(texts, plain, strict=True)]
            others = [text if not ok else "" for text, ok in zip(texts, plain, strict=True)]
            picked = sorted([*spaced.units(PADDED.join(ones)), *self._anchored(others)])
        return [index for index in picked if self.holds(texts[index])]

    def _anchored(self, texts: Sequence[str]) -> list[int]:
        """The units the anchors' pass picks."""
        if self._automaton is None:
            return list(range(len(texts)))
        scan = _scan(self._automaton, texts)
        return [i for i, found in scan.found.items() if self._may(found, scan.text(i))]

    def _may(self, anchors: list[str], low: str) -> bool:
        """Whether a unit holding ``anchors`` (its text lower-cased: ``low``) may hold a
        word or a phrase."""
        if not self._word_anchors.isdisjoint(anchors):
            return True
        for anchor in anchors:
            for rest in self._others[anchor]:
                if all(other in low for other in rest):
                    return True
        return False

    def holds(self, text: str) -> bool:
        """Whether ``text``'s words hold one of the words or every word of a phrase."""
        if self._fold and (self._ascii_folds or not text.isascii()):
            text = text.translate(self._fold)
        found = set(map(str.lower, self._pattern.findall(text)))
        if not self.words.isdisjoint(found):
            return True
        for word in self._anchor_words.intersection(found):
            for phrase in self._phrases_of[word]:
                if phrase <= found:
                    return True
        return False


WORD = re.compile(r"[\w']+(?:-[\w']+)*")
"""The words the spaced pass knows: letters, digits, ``_`` and ``'``, joined by ``-``."""
_WORD_CHARACTER = re.compile(r"[\w']")
PADDED = f" {SEPARATOR} "
_NUL = SEPARATOR.encode("ascii")


@dataclass(frozen=True)
class _Spaced:
    """The pass over units in ASCII (``WordGate``): ``table`` makes each ASCII byte what
    the rules read (folded, lower-cased; any but a word's a space); the database finds
    `` word `` for the declared words and each phrase's longest word (``keywords``, by
    id) and, by the same id, what else the unit must hold (``needs``: the other words of
    each phrase, spaced; ``((),)`` for nothing else). ``joined``: finds two words joined by
    ``-`` (folded) in an ASCII text: one word to the rules, two to the pass."""

    table: bytes
    keywords: tuple[bytes, ...]
    needs: tuple[tuple[tuple[bytes, ...], ...], ...]
    joined: re.Pattern[str]
    database: hyperscan.Database | None

    @staticmethod
    def of(
        gate: WordGate, pattern: re.Pattern[str], fold: Mapping[int, str], frequent: Sequence[str]
    ) -> _Spaced | None:
        """The pass for ``gate``, or ``None`` when ``pattern`` is not ``WORD`` or ``fold``
        makes an ASCII character anything but one ASCII character. A phrase's word looked
        for is its rarest by ``frequent`` (the words said most often, most first: any other
        is rarer), then its longest."""
        if (pattern.pattern, pattern.flags) != (WORD.pattern, WORD.flags):
            return None
        table = bytearray(b" " * 256)
        joiners = letters = ""
        for code in range(128):
            character = chr(code).translate(fold)
            if len(character) != 1 or not character.isascii():
                return None
            if character == "-":
                joiners += chr(code)
            character = character.lower()
            if _WORD_CHARACTER.fullmatch(character):
                table[code] = ord(character)
                letters += chr(code)
        table[ord(SEPARATOR)] = ord(SEPARATOR)
        letter, joiner = (f"[{''.join(map(re.escape, c))}]" for c in (letters, joiners))
        joined = re.compile(f"{letter}{joiner}{letter}" if joiners and letters else "(?!)")

        def spaced(word: str) -> bytes:
            return f" {word} ".encode("ascii").translate(table)

        ranks = {word: rank for rank, word in reversed(list(enumerate(frequent)))}

        def rarity(word: str) -> int:
            return ranks.get(word, len(ranks))

        words = frozenset(spaced(word) for word in gate.words if word.isascii())
        others: dict[bytes, set[tuple[bytes, ...]]] = {}
        for phrase in gate.phrases:
            if all(word.isascii() for word in phrase):
                first = max(phrase, key=lambda word: (rarity(word), len(word), word))
                rest = tuple(sorted(spaced(word) for word in phrase - {first}))
                others.setdefault(spaced(first), set()).add(rest)
        for word in words:
            others[word] = {()}
        keywords = tuple(sorted(others))
        needs = tuple(tuple(sorted(others[keyword])) for keyword in keywords)
        return _Spaced(bytes(table), keywords, needs, joined, _database(keywords))

    def joins(self, text: str) -> bool:
        """Whether the ASCII ``text`` holds two words joined by ``-`` (folded)."""
        return self.joined.search(text) is not None

    def units(self, joined: str) -> list[int]:
        """The units that may hold a word or a phrase, of the texts ``joined`` by
        ``PADDED`` (those in ASCII and without NUL; the others left empty); for a text
        without a joiner, exactly those whose words hold one."""
        if self.database is None:
            return []
        block = f" {joined} ".encode("ascii").translate(self.table)
        matches: list[tuple[int, int]] = []  # (end, keyword)

        def found(keyword: int, start: int, end: int, flags: int, context: object) -> None:
            matches.append((end, keyword))

        self.database.scan(block, match_event_handler=found)
        matches.sort()  # by end: none crosses a NUL, so their units come in order
        picked: list[int] = []
        index = 0  # the unit of the last match
        counted = 0  # the separators before ``counted`` are counted in ``index``
        following = -1  # where the unit after the last match's starts
        start = 0
        unit: bytes | None = None  # the text of the unit of the last match, once needed
        done = False
        all_needs = self.needs
        for end, keyword in matches:
            if end > following:
                index += block.count(_NUL, counted, end)
                counted = end
                start = block.rfind(_NUL, 0, end) + 1
                following = block.find(_NUL, end)
                if following < 0:
                    following = len(block)
                unit = None
                done = False
            elif done:
                continue
            needs = all_needs[keyword]
            if not needs[0]:  # a word, or a phrase of one word
                picked.append(index)
                done = True
                continue
            if unit is None:
                unit = block[start:following]
            for rest in needs:
                for other in rest:
                    if other not in unit:
                        break
                else:  # the unit holds every other word of a phrase
                    picked.append(index)
                    done = True
                    break
        return picked


def _database(keywords: Sequence[bytes]) -> hyperscan.Database | None:
    """A Hyperscan database finding each of ``keywords`` (its id: its index), literally;
    ``None`` for none."""
    if not keywords:
        return None
    import hyperscan  # here: its 6.5 MB library loaded by the rules, not by every command

    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=list(keywords),
        ids=list(range(len(keywords))),
        elements=len(keywords),
        flags=0,
        literal=True,
    )
    return database


def _automaton(keywords: Iterable[str] | Mapping[str, object]) -> ahocorasick.Automaton | None:
    """An automaton whose value for a keyword is the keyword (or, for a mapping, the
    keyword's value); ``None`` for no keyword."""
    automaton = ahocorasick.Automaton()
    for word in keywords:
        if not word or word != word.lower() or SEPARATOR in word:
            raise ValueError("a keyword is lower-case, non-empty and without NUL")
        value = keywords[word] if isinstance(keywords, Mapping) else word
        automaton.add_word(word, value)
    if not len(automaton):
        return None
    automaton.make_automaton()
    return automaton


@dataclass(frozen=True)
class _Scan:
    """The texts joined by NUL and lower-cased (``low``), where each text after the first
    starts in it (``starts``), and the keywords each text holds, by the text's index
    (ascending; a text holding none left out), each keyword as often as it is found."""

    low: str
    starts: list[int]
    found: dict[int, list[str]]

    def text(self, index: int) -> str:
        """The text ``index``, lower-cased."""
        start = self.starts[index - 1] if index else 0
        end = self.starts[index] - 1 if index < len(self.starts) else len(self.low)
        return self.low[start:end]


def _scan(automaton: ahocorasick.Automaton | None, texts: Sequence[str]) -> _Scan:
    """One Aho-Corasick pass over the texts joined by NUL and lower-cased."""
    if automaton is None or not texts:
        return _Scan("", [], {})
    block = SEPARATOR.join(texts)
    low = block.lower()
    lengths: Iterable[int]
    if len(low) == len(block):  # lower-casing never shortens: each character kept its place
        lengths = map(len, texts)
    else:  # lower-casing changed a text's length: each text on its own
        lowered = [text.lower() for text in texts]
        low = SEPARATOR.join(lowered)
        lengths = map(len, lowered)
    starts = list(accumulate((length + 1 for length in lengths), initial=0))[1:-1]
    found: dict[int, list[str]] = {}
    following = -1  # where the text after the last one found starts
    keywords: list[str] = []
    # matches come by end position, and none crosses a NUL: their texts come in order
    for end, keyword in automaton.iter(low):
        if end >= following:
            index = bisect_right(starts, end)
            following = starts[index] if index < len(starts) else len(low)
            keywords = found[index] = []
        keywords.append(keyword)
    return _Scan(low, starts, found)


def _anchor(word: str, unstable: set[str]) -> str:
    """The longest run of letters and digits of ``word`` without a character of
    ``unstable`` (what folding or lower-casing in context may change); ``""`` for none."""
    spaced = "".join(" " if character in unstable else character for character in word)
    return max(re.findall(r"[^\W_]+", spaced), key=lambda run: (len(run), run), default="")

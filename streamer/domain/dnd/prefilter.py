"""The rules' prefilter: which units of a block can hold what a rule looks for.

The per-unit rules cost some microseconds of Python a unit, and fewer than one unit in a
hundred holds a cast or a name. ``Gate.units(texts)`` looks at a whole block of units at
once (one chunk: their texts joined by NUL, lower-cased in one call) and returns the
indices of the units that hold one of the gate's *keywords* (lower-case substrings): only
those reach the per-unit rules.

A gate changes no result: a rule is given one only when every unit the rule can find
something in holds one of its keywords, lower-cased (``str.lower``, applied to the unit's
text). The casting verbs' keyword is ``cast``; a spoken spell name's is its longest word.
``tests/test_rules_prefilter.py`` checks that the prefiltered rules give exactly the
candidates of the same rules run on every unit, on the CRD3 episodes and on generated
text.

The keywords are found by an Aho-Corasick automaton (``pyahocorasick``): one pass over the
block whatever the number of keywords (measured against one combined regular expression in
``benchmarks/rules_bench.py``: 125 MB/s against 7 MB/s; docs/extraction.md has the
figures).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate

import ahocorasick

SEPARATOR = "\x00"


class Gate:
    """The units of a block that hold one of ``keywords`` (lower-case, non-empty, without
    NUL), by one Aho-Corasick pass over the block."""

    def __init__(self, keywords: Iterable[str]) -> None:
        words = sorted(set(keywords))
        for word in words:
            if not word or word != word.lower() or SEPARATOR in word:
                raise ValueError("a keyword is lower-case, non-empty and without NUL")
        self.keywords = tuple(words)
        self._automaton: ahocorasick.Automaton | None = None
        if words:
            automaton = ahocorasick.Automaton()
            for word in words:
                automaton.add_word(word, len(word))
            automaton.make_automaton()
            self._automaton = automaton

    def units(self, texts: Sequence[str]) -> list[int]:
        """The indices (ascending) of the texts holding a keyword."""
        automaton = self._automaton
        if automaton is None or not texts:
            return []
        block = SEPARATOR.join(texts)
        if block.isascii():
            low = block.lower()
            lengths: Iterable[int] = map(len, texts)
        else:  # lower-casing may change a text's length: each text on its own
            lowered = [text.lower() for text in texts]
            low = SEPARATOR.join(lowered)
            lengths = map(len, lowered)
        # the start of each text after the first in ``low``
        starts = list(accumulate((length + 1 for length in lengths), initial=0))[1:-1]
        found: list[int] = []
        last = -1
        # matches come by end position; none crosses a NUL, so their texts come in order
        for end, size in automaton.iter(low):
            index = bisect_right(starts, end - size + 1)
            if index != last:
                found.append(index)
                last = index
        return found

"""Kinds of capitalized names that are neither an NPC nor a place, told from a name's words
and the whole session's counts of it (``world_names._worldly`` asks ``other_kind``).

- **A group**: a faction, a guild, a family as a group: a group's word closing the name or
  "House" opening it ("the Crown's Guard", C2E001; "the Chroma Conclave", C1E060; "House
  Thunderbrand", C1E001), or a group's word before "of" ("the Third House of Whitestone",
  C1E060; "the Knights of Zadash").
- **A spell or a feature**: said after "cast", or "cast" and an article or a possessive,
  at least once ("You cast the Glacial Blast forward", C1E001: a spell of another book;
  "cast at Marius" is no such cue).
- **A thing**: said beside a weapon's or a jewel's word at least half the time ("the bow
  of Fenthras", "the Fenthras bow", "a certain bow, Fenthras", C1E060).
- **A shape**: said after "turn into" ("I turn into Minxie", C1E060: a druid's beast).
- **The real world**: a word of the name is one of the real world's ("the Witcher Series",
  "Emerald City Comic Con", C2E001), or a name said as a way of speaking ("a German
  accent", C2E001).
"""

from __future__ import annotations

from collections.abc import Sequence

from streamer.domain.dnd.name_cues import CAST, GROUP_FIRST, GROUP_LAST, ITEM_WORDS
from streamer.domain.dnd.proper_nouns import REAL_WORLD, NameCounts

_SHAPES = ("turn into", "turns into", "turned into", "transform into", "transforms into")
_ARTICLES = frozenset(["a", "an", "the", "my", "his", "her", "their", "our", "your"])


def other_kind(name: str, counts: NameCounts) -> bool:
    """Whether ``name`` (a group's longest name), counted by ``counts``, is a group, a spell
    or a feature, or a name of the real world."""
    words = name.split()
    real = any(word.lower() in REAL_WORLD for word in words) or counts.after["accent"] > 0
    return group(words) or cast(counts) or shape(counts) or item(counts) or real


def group(words: Sequence[str]) -> bool:
    """A faction, a guild or a family: "Crown's Guard", "House Thunderbrand"."""
    if "of" in words:  # "Third House of Whitestone", "Council of Tal'Dorei"
        return not (GROUP_LAST | GROUP_FIRST).isdisjoint(words[: words.index("of")])
    return len(words) > 1 and (words[-1] in GROUP_LAST or words[0] in GROUP_FIRST)


def shape(counts: NameCounts) -> bool:
    """A form someone takes: said after "turn into" ("I turn into Minxie")."""
    return any(counts.before_two[two] for two in _SHAPES)


def item(counts: NameCounts) -> bool:
    """A thing one holds: said beside a word of one ("bow of", "bow", "bow," before it;
    "bow" after it) at least half the time ("Fenthras", C1E060)."""
    beside = sum(counts.before[word] + counts.after[word] for word in ITEM_WORDS)
    for two, n in counts.before_two.items():
        first, _, second = two.partition(" ")
        beside += n * (second == "of" and first in ITEM_WORDS)
    return beside * 2 >= counts.said


def cast(counts: NameCounts) -> bool:
    """Said after "cast" ("cast Glacial Blast", "cast the Glacial Blast") at least once."""
    if any(counts.before[word] for word in CAST):
        return True
    for two, n in counts.before_two.items():
        first, _, second = two.partition(" ")
        if n and first in CAST and second in _ARTICLES:
            return True
    return False

"""Published records matched to expected ones, one lane at a time.

A published record and an expected one *can match* when their identities are compatible
(``identity``) and their evidence is within ``tolerance`` units: the fewest units between a
range one cites and a range the other cites (0 when two ranges overlap), by document
position (unit IDs are opaque: positions come from the source document). A kind that cites
no evidence matches by identity alone.

Each expected record is matched at most once, and as many records as can be are matched:
a maximum matching of the bipartite graph of the pairs that can match (augmenting paths,
tried in the order of the published records, each trying its candidates nearest first,
then in reference order: the result is deterministic). Required expected records are
matched first; a published record left over that can match an optional one is set aside
(counted neither published nor matched), and optional records left over are not missing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.evaluation.identity import Identity
from streamer.framework.source.reference import SourceReference

Span = tuple[int, int]  # first and last document position of a cited range


def spans(refs: Sequence[SourceReference], positions: Mapping[str, int]) -> tuple[Span, ...]:
    return tuple((positions[ref.start_unit_id], positions[ref.end_unit_id]) for ref in refs)


def distance(mine: Sequence[Span], theirs: Sequence[Span]) -> int:
    """The fewest units between a range of ``mine`` and one of ``theirs`` (0: they
    overlap); 0 when either cites nothing (a kind without evidence)."""
    if not mine or not theirs:
        return 0
    return min(max(0, a - d, c - b) for a, b in mine for c, d in theirs)


def overlaps(scope: Sequence[Span], cited: Sequence[Span]) -> bool:
    return not scope or not cited or distance(scope, cited) == 0


@dataclass(frozen=True)
class Item:
    """A record as matched: its position in its list, identity and cited spans."""

    index: int
    identity: Identity
    spans: tuple[Span, ...]


@dataclass(frozen=True)
class Pair:
    published: int
    expected: int
    distance: int


def maximum_matching(
    published: Sequence[Item], expected: Sequence[Item], tolerance: int
) -> list[Pair]:
    """The pairs of a maximum matching, in the order of the published records."""
    groups: dict[tuple[Any, ...], list[Item]] = {}
    for item in expected:
        groups.setdefault(item.identity.key, []).append(item)
    options: dict[int, list[tuple[int, int]]] = {}
    for item in published:
        found = [
            (distance(item.spans, other.spans), other.index)
            for other in groups.get(item.identity.key, ())
            if item.identity.compatible(other.identity)
        ]
        options[item.index] = sorted(pair for pair in found if pair[0] <= tolerance)
    owner: dict[int, int] = {}  # expected index -> published index
    for item in published:
        _augment(item.index, options, owner)
    gaps = {(p, e): d for p, found in options.items() for d, e in found}
    pairs = [Pair(p, e, gaps[p, e]) for e, p in owner.items()]
    return sorted(pairs, key=lambda pair: pair.published)


def _augment(
    start: int, options: Mapping[int, list[tuple[int, int]]], owner: dict[int, int]
) -> None:
    """One augmenting path from the published record ``start``: Kuhn's depth-first search,
    iterative (no recursion limit however large a group of equal records). A frame is
    [published record, its next option, the expected record it is trying]."""
    visited: set[int] = set()
    stack: list[list[int]] = [[start, 0, -1]]
    while stack:
        frame = stack[-1]
        choices = options[frame[0]]
        at = frame[1]
        while at < len(choices) and choices[at][1] in visited:
            at += 1
        if at == len(choices):
            stack.pop()  # no path through this record: its parent tries its next option
            continue
        target = choices[at][1]
        visited.add(target)
        frame[1], frame[2] = at + 1, target
        holder = owner.get(target)
        if holder is None:  # a free expected record: every frame takes the one it tries
            for published, _, expected in stack:
                owner[expected] = published
            return
        stack.append([holder, 0, -1])


@dataclass(frozen=True)
class LaneMatch:
    """How one lane's records matched: pairs (published, expected, distance), the
    published records set aside by optional ones, and the rest of each side."""

    pairs: tuple[Pair, ...]
    set_aside: tuple[Pair, ...]
    spurious: tuple[int, ...]
    missing: tuple[int, ...]


def match_lane(
    published: Sequence[Item],
    expected: Sequence[Item],
    optional: Callable[[int], bool],
    tolerance: int,
) -> LaneMatch:
    """Match ``published`` to ``expected`` (``optional(index)`` says which are optional)."""
    required = [item for item in expected if not optional(item.index)]
    pairs = maximum_matching(published, required, tolerance)
    taken = {pair.published for pair in pairs}
    left = [item for item in published if item.index not in taken]
    extra = [item for item in expected if optional(item.index)]
    set_aside = maximum_matching(left, extra, tolerance)
    taken |= {pair.published for pair in set_aside}
    found = {pair.expected for pair in pairs}
    return LaneMatch(
        tuple(pairs),
        tuple(set_aside),
        tuple(item.index for item in published if item.index not in taken),
        tuple(item.index for item in required if item.index not in found),
    )

"""The identity rules: accepted candidates in, one group per record out.

Every rule is a function of the candidates as a set (their order never matters) and of
document positions only (unit IDs are opaque). A reference here is a ``Ref``: its start
and end positions and unit IDs; two references overlap when each starts at or before the
other's end. The rules (``NormalizationSpec`` names them; ``docs/normalization.md``):

Members are compared by identity: the canonical members with every name member replaced
by its name key (``Scanlan`` and ``scanlan`` are the same caster); a record publishes the
members of its candidate cited first (then the smallest spelling), never a mix.

- ``occurrences``: candidates with equal identities are one record when their
  references overlap, directly or through a chain of such candidates (the connected
  components of the overlap graph); the record cites the union of their references, exact
  duplicates removed, ordered by position. Candidates citing disjoint evidence stay apart.
- ``registry``: candidates whose key member has the same name key are one record citing
  the union of their references.
- ``nearby``: one record per event told more than once (``dnd/spell-casts``: a player's
  declaration and the game master's narration a few units later). Candidates whose
  identities are equal but for the optional members (``caster``), each of those equal or
  ``null`` in one of them, are one record when each cites a unit at most ``window`` units
  after the reach of the ones before it (the end of their references), in position order:
  a sweep that keeps the clusters still open and puts each candidate in the most recently
  extended compatible one (else a new one). The record cites the union of their
  references and publishes the members of the candidate cited first among those with the
  most optional members given (a named caster wins over ``null``), never a mix.
- ``spans``: one reference a record. Candidates with equal identities whose ranges
  overlap (connected components, as above) are the fragments of one span (a scene cut by
  chunk boundaries): one record citing their union, the range from the first fragment's
  start to the last one's end (overlapping ranges chain, so it holds no unit no fragment
  cited).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.framework.json.canonical import canonical


@dataclass(frozen=True, order=True)
class Ref:
    """A grounded source reference: positions first, so refs sort by position."""

    start: int
    end: int
    start_unit_id: str
    end_unit_id: str

    def overlaps(self, other: Ref) -> bool:
        return self.start <= other.end and other.start <= self.end

    def to_json(self) -> dict[str, str]:
        return {"start_unit_id": self.start_unit_id, "end_unit_id": self.end_unit_id}


@dataclass(frozen=True)
class Grounded:
    """An accepted candidate: its canonical members (evidence aside), its references and
    its identity ``key`` (the members as compared: name members by their name key)."""

    line: int
    members: dict[str, Any]
    refs: tuple[Ref, ...]  # distinct, ordered by position
    identity: Any = None

    @property
    def key(self) -> bytes:
        """Equal identities, equal key (the members themselves when no identity is given)."""
        return canonical(self.members if self.identity is None else self.identity)

    @property
    def spelling(self) -> bytes:
        return canonical(self.members)


@dataclass(frozen=True)
class Group:
    """One record to be: its members, its references, ordered, its source lines and its
    identity (that of its candidates)."""

    members: dict[str, Any]
    refs: tuple[Ref, ...]
    lines: tuple[int, ...]
    identity: Any = None


def distinct_refs(refs: Sequence[Ref]) -> tuple[Ref, ...]:
    return tuple(sorted(set(refs)))


class _Components:
    """Union-find over indices."""

    def __init__(self, size: int) -> None:
        self._parent = list(range(size))

    def find(self, index: int) -> int:
        parent = self._parent
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def union(self, first: int, second: int) -> None:
        a, b = self.find(first), self.find(second)
        if a != b:
            self._parent[max(a, b)] = min(a, b)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for index in range(len(self._parent)):
            out.setdefault(self.find(index), []).append(index)
        return list(out.values())


def overlap_components(items: Sequence[Grounded]) -> list[list[Grounded]]:
    """The connected components of ``items`` under "some reference of one overlaps some
    reference of the other", by one sweep over their references in position order."""
    components = _Components(len(items))
    intervals = sorted(
        (ref.start, ref.end, index) for index, item in enumerate(items) for ref in item.refs
    )
    reach = -1
    representative = -1
    for start, end, index in intervals:
        if start <= reach:
            components.union(index, representative)
            reach = max(reach, end)
        else:
            representative, reach = index, end
    return [[items[index] for index in group] for group in components.groups()]


def _by_key(items: Sequence[Grounded], key: Callable[[Grounded], Any]) -> list[list[Grounded]]:
    groups: dict[Any, list[Grounded]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.values())


def _first_cited(item: Grounded) -> tuple[Any, ...]:
    """The candidate whose members a record publishes: the one cited first, then the
    smallest spelling (code-point order of its canonical JSON): never the line order."""
    return (item.refs[0], item.spelling)


def occurrences(items: Sequence[Grounded]) -> list[Group]:
    out: list[Group] = []
    for same in _by_key(items, lambda item: item.key):
        for component in overlap_components(same):
            refs = distinct_refs([ref for item in component for ref in item.refs])
            first = min(component, key=_first_cited)
            out.append(Group(first.members, refs, _lines(component), first.identity))
    return _ordered(out)


def registry(items: Sequence[Grounded], key: Callable[[Grounded], str]) -> list[Group]:
    out: list[Group] = []
    for same in _by_key(items, key):
        first = min(same, key=_first_cited)
        refs = distinct_refs([ref for item in same for ref in item.refs])
        out.append(Group(first.members, refs, _lines(same), key(first)))
    return _ordered(out)


def nearby(items: Sequence[Grounded], window: int, optional: Sequence[str]) -> list[Group]:
    out: list[Group] = []

    def base(item: Grounded) -> bytes:
        identity = item.identity if item.identity is not None else item.members
        return canonical({k: v for k, v in identity.items() if k not in optional})

    def given(item: Grounded) -> dict[str, Any]:
        identity = item.identity if item.identity is not None else item.members
        return {k: identity.get(k) for k in optional if identity.get(k) is not None}

    for same in _by_key(items, base):
        for component in _clusters(sorted(same, key=_first_cited), window, given):
            refs = distinct_refs([ref for item in component for ref in item.refs])
            first = min(component, key=lambda item: (-len(given(item)), *_first_cited(item)))
            out.append(Group(first.members, refs, _lines(component), first.identity))
    return _ordered(out)


Cluster = tuple[dict[str, Any], int, list[Grounded]]  # its known members, reach, items


def _clusters(
    items: Sequence[Grounded], window: int, given: Callable[[Grounded], dict[str, Any]]
) -> list[list[Grounded]]:
    """The clusters of ``nearby``, in the order they were last joined: each item (in order
    of its first reference) joins the cluster joined most recently that is compatible with
    it and reaches within ``window`` units of its start, else starts one.

    A cluster whose reach ends more than ``window`` units before an item's start can join
    neither it nor any later item (they start later, and its reach grows only when joined):
    it is closed, so an item is compared only with the clusters still open around it."""
    opened: dict[int, Cluster] = {}  # by the turn it was last joined: in that order
    closed: list[tuple[int, list[Grounded]]] = []
    reaches: list[tuple[int, int]] = []  # (reach, turn) of every cluster, a heap
    for turn, item in enumerate(items):
        start = item.refs[0].start
        while reaches and reaches[0][0] + window < start:
            _, last = heapq.heappop(reaches)
            if last in opened:  # else joined again since: another entry holds its reach
                closed.append((last, opened.pop(last)[2]))
        known = given(item)
        chosen = next(
            (
                last
                for last in reversed(opened)
                if all(opened[last][0].get(k, v) == v for k, v in known.items())
                and start <= opened[last][1] + window
            ),
            None,
        )
        if chosen is None:
            reach, members = item.refs[-1].end, [item]
        else:
            values, reach, members = opened.pop(chosen)
            reach = max(reach, max(ref.end for ref in item.refs))
            known = {**values, **known}
            members.append(item)
        opened[turn] = (known, reach, members)
        heapq.heappush(reaches, (reach, turn))
    joined = closed + [(turn, cluster[2]) for turn, cluster in opened.items()]
    return [members for _, members in sorted(joined, key=lambda pair: pair[0])]


def spans(items: Sequence[Grounded]) -> list[Group]:
    out: list[Group] = []
    for same in _by_key(items, lambda item: item.key):
        for component in overlap_components(same):
            first_ref = min(item.refs[0] for item in component)
            last_ref = max(component, key=lambda item: (item.refs[0].end, item.refs[0])).refs[0]
            union = Ref(
                first_ref.start, last_ref.end, first_ref.start_unit_id, last_ref.end_unit_id
            )
            first = min(component, key=_first_cited)
            out.append(Group(first.members, (union,), _lines(component), first.identity))
    return _ordered(out)


def _lines(items: Sequence[Grounded]) -> tuple[int, ...]:
    return tuple(sorted(item.line for item in items))


def _ordered(groups: list[Group]) -> list[Group]:
    """Records in the order of their first reference, then of their members (their
    canonical JSON as text: the order of its UTF-8 bytes, but orjson's bytes object of a
    small value holds about 4 KiB, 40 MB for the sort keys of 10,000 records)."""
    return sorted(groups, key=lambda group: (group.refs[0], canonical(group.members).decode()))

"""Coverage decided while the source streams by: which units some reference, expanded by the
window, covers (``Coverage``), over the distinct references indexed by the unit IDs at their
ends (``References``). A reference read end first fails as reversed."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import SourceError, SourceReferenceError
from streamer.framework.evidence.intervals import merged_runs
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import Batch

from .request import Citation


class References:
    """The distinct direct references, indexed by the unit IDs at their ends."""

    def __init__(self, citations: Iterable[Citation]) -> None:
        self.distinct: list[SourceReference] = []
        self.lanes: list[set[str]] = []
        self.first: list[Citation] = []
        index_of: dict[SourceReference, int] = {}
        self.starts: dict[str, list[int]] = {}
        self.ends: dict[str, list[int]] = {}
        for citation in citations:
            reference = citation.reference
            index = index_of.get(reference)
            if index is None:
                index = index_of[reference] = len(self.distinct)
                self.distinct.append(reference)
                self.lanes.append(set())
                self.first.append(citation)
                self.starts.setdefault(reference.start_unit_id, []).append(index)
                self.ends.setdefault(reference.end_unit_id, []).append(index)
            self.lanes[index].add(citation.lane_id)
        self.wanted = frozenset(self.starts) | frozenset(self.ends)


_UNBOUNDED = 1 << 62


class Coverage:
    """Streams coverage decisions over batches of units.

    A unit at position ``x`` is covered when some reference ``[s, e]`` has
    ``s - window <= x <= e + window``. Once every unit up to ``x + window`` has been read,
    every reference that can cover ``x`` has had its start seen, and one whose end is not
    seen yet can only end later, so its interval is ``[s - window, +inf)`` for now. Units
    are therefore decided ``window`` positions behind the reading; the undecided ones wait
    in ``pending``. Only the intervals of references near the reading point are held.
    """

    def __init__(self, references: References, window: int) -> None:
        self.references = references
        self.window = window
        self.positions: dict[str, int] = {}
        self.open: dict[int, int] = {}  # reference index -> start position (end not seen)
        self.closed: list[tuple[int, int]] = []  # expanded intervals that may still matter
        # the batches holding undecided units (from position ``decided``), with the
        # position of their first unit: whole, since a batch may decode its units only
        # when they are taken (``source.parallel``)
        self.pending: list[tuple[int, Sequence[SourceUnit]]] = []
        self.decided = 0  # first undecided position
        self._trusted: frozenset[str] | None = None  # the reader's set, once found equal

    def read(self, batch: Batch, base: int) -> None:
        """Index the referenced units of ``batch`` (positions ``base``...): where the
        reader found them (``batch.hits``, when it looked for exactly these), or found
        here among its IDs."""
        references = self.references
        hits = batch.hits
        if hits is not None and self._looked_for(hits.wanted):
            found: Iterable[tuple[int, str]] = hits.found
        else:
            ids = batch.ids
            wanted = references.wanted.intersection(ids)
            if not wanted:
                return
            offsets = itertools.compress(itertools.count(), map(wanted.__contains__, ids))
            found = ((offset, ids[offset]) for offset in offsets)
        positions, window = self.positions, self.window
        for offset, unit_id in found:
            position = base + offset
            if unit_id in positions:
                raise SourceError(
                    f"unit ID {quoted(unit_id)} appears twice (at positions "
                    f"{positions[unit_id]} and {position}) and is referenced",
                    hint="unit IDs must be unique in a source document",
                )
            positions[unit_id] = position
            for index in references.starts.get(unit_id, ()):
                end_id = references.distinct[index].end_unit_id
                if end_id != unit_id and end_id in positions:
                    _reversed(references.first[index])
                self.open[index] = position
            for index in references.ends.get(unit_id, ()):
                start = self.open.pop(index, None)
                if start is not None:
                    self.closed.append((start - window, position + window))

    def _looked_for(self, wanted: frozenset[str]) -> bool:
        """Whether ``wanted`` is the set of referenced IDs (compared once a set)."""
        if wanted is not self._trusted:
            if wanted != self.references.wanted:
                return False
            self._trusted = wanted
        return True

    def units(self, low: int, high: int) -> list[SourceUnit]:
        """The pending units at positions ``low`` to ``high``."""
        taken: list[SourceUnit] = []
        for start, units in self.pending:
            if start > high:
                break
            if start + len(units) > low:
                taken += units[max(low - start, 0) : high + 1 - start]
        return taken

    def release(self) -> None:
        """Forget the batches whose units are all decided."""
        decided = self.decided
        self.pending = [(s, units) for s, units in self.pending if s + len(units) > decided]

    def covered(self, last: int) -> list[tuple[int, int]]:
        """The covered runs among the undecided positions up to ``last``, merged."""
        first = self.decided
        intervals = [(low, high) for low, high in self.closed if high >= first]
        self.closed = intervals
        if self.open:
            intervals = [*intervals, (min(self.open.values()) - self.window, _UNBOUNDED)]
        clipped = ((max(low, first), min(high, last)) for low, high in intervals)
        return merged_runs((low, high) for low, high in clipped if low <= high)


def _reversed(citation: Citation) -> None:
    reference = citation.reference
    raise SourceReferenceError(
        f"{citation.where()}: reversed source reference: {quoted(reference.start_unit_id)} "
        f"comes after {quoted(reference.end_unit_id)} in the source document"
    )

"""The streaming evidence projector.

One pass over the source document does all the reading:

* every unit is validated and digested by the ``SourceDocumentReader``, a batch at a time;
* the positions of the referenced unit IDs are indexed as they go by;
* coverage is resolved on the fly: the last ``window_units`` units wait (``pending``) until
  it is known whether a reference starting up to ``window_units`` later reaches back to
  them, and each covered unit is serialized once, into a spool, grouped into the
  contexts as they close (``_SpoolWriter``). These streamed contexts are what is published.

After the pass, every reference is resolved through the indexed positions (missing or
reversed references fail), and the expanded ranges are merged independently
(``merged_runs``): the streamed contexts must equal it (a difference is a bug, never an
input error). The published unit IDs are checked for duplicates as the pass ends (by their
8-byte hashes; the spool is read back only when a hash repeats). Writing the evidence
document is a second pass that copies the spooled units, never re-parsing the transcript.

Memory holds the references, the positions of the unit IDs they name, an 8-byte hash per
published unit, the batches that hold the window's pending units (a batch's units may
be decoded only when they are published: ``source.parallel``): never the transcript. The spool
(in memory up to 1 MiB, then a temporary file in ``TMPDIR``) holds every published unit
until the pass ends, since nothing is written before the whole source is checked. A
reference whose end unit is missing can only be known to be missing when the source ends;
until then every unit after its start is covered and spooled. When the spool cannot grow,
the run fails with ``SpoolFullError`` naming the reference still open.
"""

from __future__ import annotations

import array
import bisect
import itertools
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO

import msgspec

from streamer.framework.errors import (
    LaneOutputError,
    SourceError,
    SourceReferenceError,
    StreamerError,
)
from streamer.framework.evidence.intervals import merged_runs
from streamer.framework.kinds.lane_outputs import DocumentSource
from streamer.framework.safe_text import quoted
from streamer.framework.source.reader import DocumentIdentity
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.units import (
    Batch,
    published_units,
    unit_ids,
)

from .request import Citation, EvidenceRequest

SPOOL_IN_MEMORY = 1 << 20


class _PublishedId(msgspec.Struct):
    unit_id: str


_ids_decoder = msgspec.json.Decoder(list[_PublishedId])
_hash = hash  # a module attribute, so that a test can make every ID collide


@dataclass
class Context:
    """One merged, expanded range of the evidence document."""

    start_position: int
    end_position: int
    start_unit_id: str
    end_unit_id: str
    spool_start: int
    spool_end: int
    references: list[tuple[SourceReference, tuple[str, ...]]] = field(default_factory=list)


@dataclass
class ProjectedEvidence:
    """The projection's result: the document identity, the contexts and their spooled units."""

    identity: DocumentIdentity
    lanes: tuple[str, ...]
    window_units: int
    contexts: list[Context]
    spool: IO[bytes]

    def copy_units(self, context: Context, out: IO[bytes], chunk_size: int = 1 << 20) -> None:
        """Write the context's units (comma-separated published JSON) to ``out``."""
        spool = self.spool
        spool.seek(context.spool_start)
        remaining = context.spool_end - context.spool_start
        while remaining:
            data = spool.read(min(chunk_size, remaining))
            if not data:
                raise RuntimeError("the evidence spool ended early")
            out.write(data)
            remaining -= len(data)

    def close(self) -> None:
        self.spool.close()


class _References:
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


class _Coverage:
    """Streams coverage decisions over batches of units.

    A unit at position ``x`` is covered when some reference ``[s, e]`` has
    ``s - window <= x <= e + window``. Once every unit up to ``x + window`` has been read,
    every reference that can cover ``x`` has had its start seen, and one whose end is not
    seen yet can only end later, so its interval is ``[s - window, +inf)`` for now. Units
    are therefore decided ``window`` positions behind the reading; the undecided ones wait
    in ``pending``. Only the intervals of references near the reading point are held.
    """

    def __init__(self, references: _References, window: int) -> None:
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


def open_spool() -> IO[bytes]:
    """The evidence spool: in memory up to ``SPOOL_IN_MEMORY``, then a file in TMPDIR."""
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)


def project_evidence(
    request: EvidenceRequest,
    batches: Iterable[Batch],
    identity_of: Callable[[], DocumentIdentity],
) -> ProjectedEvidence:
    """Project ``request`` over the validated units of a source document, in batches.

    ``identity_of()`` returns the document's identity once ``batches`` is exhausted (for
    example ``lambda: reader.identity`` for a ``SourceDocumentReader``).
    """
    window = request.window_units
    references = _References(request.citations)
    coverage = _Coverage(references, window)
    spool = open_spool()
    writer = _SpoolWriter(spool)
    base = 0
    try:
        try:
            for batch in batches:
                units = batch.units
                coverage.read(batch, base)
                coverage.pending.append((base, units))
                base += len(units)
                writer.emit(coverage, base - 1 - window)
            writer.emit(coverage, base - 1)
        except _SpoolFull as full:
            raise _spool_error(full, coverage) from None
        contexts = writer.finish()
        identity = identity_of()
        check_sources(request.sources, identity)
        positions = coverage.positions
        union = _resolve(references, positions, window, identity.unit_count)
        if [(c.start_position, c.end_position) for c in contexts] != union:
            raise RuntimeError("streamed coverage disagrees with the interval union")
        _attach_references(contexts, references, positions)
    except BaseException:
        spool.close()
        raise
    return ProjectedEvidence(identity, request.lanes, window, contexts, spool)


class _SpoolWriter:
    """Serializes covered units into the spool, grouping them into contexts."""

    def __init__(self, spool: IO[bytes]) -> None:
        self.spool = spool
        self.size = 0
        self.contexts: list[Context] = []
        self.run: Context | None = None
        # The hash of every published unit ID, 8 bytes each: far smaller than the IDs.
        self.hashes = array.array("q")

    def emit(self, coverage: _Coverage, last: int) -> None:
        """Decide the undecided units (``coverage.pending``) up to position ``last``."""
        if last < coverage.decided:
            return
        for low, high in coverage.covered(last):
            if self.run is not None and low > self.run.end_position + 1:
                self._close()
            self._write(low, coverage.units(low, high))
        if self.run is not None and self.run.end_position < last:
            self._close()
        coverage.decided = last + 1
        coverage.release()

    def _write(self, position: int, segment: list[SourceUnit]) -> None:
        """Publish the contiguous ``segment`` of covered units starting at ``position``."""
        ids = unit_ids(segment)
        self.hashes.extend(map(_hash, ids))
        data = published_units(segment)
        run = self.run
        if run is None:
            run = self.run = Context(position, position, ids[0], ids[0], self.size, self.size)
        else:
            data = b"," + data
        run.end_position = position + len(segment) - 1
        run.end_unit_id = ids[-1]
        try:
            self.spool.write(data)
        except OSError as error:  # TMPDIR is full (or over a quota, or a file size limit)
            raise _SpoolFull(self.size, error.strerror or type(error).__name__) from None
        self.size += len(data)
        run.spool_end = self.size

    def _close(self) -> None:
        if self.run is not None:
            self.contexts.append(self.run)
            self.run = None

    def finish(self) -> list[Context]:
        self._close()
        self._check_unique()
        return self.contexts

    def _check_unique(self) -> None:
        """Fail when a unit ID appears twice among the published units.

        Equal IDs have equal hashes, so only IDs whose hash repeats can be duplicates: in
        the rare case that any does, the spooled units are read back to compare the IDs
        themselves (two different IDs may share a hash; that is not an error).
        """
        ordered = sorted(self.hashes)
        repeated = {a for a, b in itertools.pairwise(ordered) if a == b}
        del ordered
        if not repeated:
            return
        seen: set[str] = set()
        for context in self.contexts:
            self.spool.seek(context.spool_start)
            listed = b"[" + self.spool.read(context.spool_end - context.spool_start) + b"]"
            for unit_id in (unit.unit_id for unit in _ids_decoder.decode(listed)):
                if _hash(unit_id) in repeated:
                    if unit_id in seen:
                        raise SourceError(
                            f"unit ID {quoted(unit_id)} appears twice among the published units",
                            hint="unit IDs must be unique in a source document",
                        )
                    seen.add(unit_id)


class _SpoolFull(Exception):
    def __init__(self, size: int, reason: str) -> None:
        super().__init__(reason)
        self.size = size
        self.reason = reason


class SpoolFullError(StreamerError):
    """The evidence spool could not grow (exit status 1: the machine, not the input)."""


def _spool_error(full: _SpoolFull, coverage: _Coverage) -> SpoolFullError:
    """A clear error when the spool cannot grow, naming the reference that keeps it growing
    when one is still open (its start seen, its end unit not yet)."""
    message = f"the evidence spool in TMPDIR cannot grow past {full.size:,} bytes ({full.reason})"
    if coverage.open:
        index = min(coverage.open, key=coverage.open.__getitem__)
        message += (
            f"; {len(coverage.open)} reference(s) still open since source position "
            f"{coverage.open[index]}, the first {coverage.references.first[index].where()}: "
            "its end unit has not appeared, and every unit after its start is kept"
        )
    return SpoolFullError(
        message,
        hint="the spool holds every published unit until the source has been read; free "
        "space in TMPDIR or point TMPDIR at a larger disk (see docs/operations.md)",
    )


def _reversed(citation: Citation) -> None:
    reference = citation.reference
    raise SourceReferenceError(
        f"{citation.where()}: reversed source reference: {quoted(reference.start_unit_id)} "
        f"comes after {quoted(reference.end_unit_id)} in the source document"
    )


def check_sources(
    sources: Iterable[tuple[str, DocumentSource]], identity: DocumentIdentity
) -> None:
    """Fail unless every lane output names ``identity``'s document and digest."""
    for lane_id, source in sources:
        if source.document_id != identity.document_id:
            raise LaneOutputError(
                f"lane {lane_id}: $.source.document_id names another document",
                hint="lane outputs must come from the source document being projected",
            )
        if source.semantic_digest != identity.semantic_digest:
            raise LaneOutputError(
                f"lane {lane_id}: $.source.semantic_digest does not match the source document",
                hint="the lane was extracted from another version of the transcript",
            )


def _resolve(
    references: _References, positions: dict[str, int], window: int, unit_count: int
) -> list[tuple[int, int]]:
    """The merged runs of the references' expanded ranges, each resolved by position."""
    last = unit_count - 1
    expanded: list[tuple[int, int]] = []
    for index, reference in enumerate(references.distinct):
        citation = references.first[index]
        for unit_id in (reference.start_unit_id, reference.end_unit_id):
            if unit_id not in positions:
                raise SourceReferenceError(
                    f"{citation.where()}: unit ID {quoted(unit_id)} is not in the source document"
                )
        # A reversed reference never gets here: ``_Coverage.read`` fails on it when its
        # start unit is read after its end unit.
        start, end = positions[reference.start_unit_id], positions[reference.end_unit_id]
        expanded.append((max(0, start - window), min(last, end + window)))
    return merged_runs(expanded)


def _attach_references(
    contexts: list[Context], references: _References, positions: dict[str, int]
) -> None:
    starts = [context.start_position for context in contexts]
    ordered = sorted(
        range(len(references.distinct)),
        key=lambda index: (
            positions[references.distinct[index].start_unit_id],
            positions[references.distinct[index].end_unit_id],
        ),
    )
    for index in ordered:
        reference = references.distinct[index]
        context = contexts[bisect.bisect_right(starts, positions[reference.start_unit_id]) - 1]
        context.references.append((reference, tuple(sorted(references.lanes[index]))))

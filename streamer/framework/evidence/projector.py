"""The streaming evidence projector.

One pass over the source document does all the reading:

* every unit is validated and digested by the ``SourceDocumentReader``;
* the positions of the referenced unit IDs are indexed as they go by;
* coverage is resolved on the fly: a ring of the last ``window_units`` units waits until
  it is known whether a reference starting up to ``window_units`` later reaches back to
  it, and each covered unit is serialized once, into a spool.

After the pass, every reference is resolved through the indexed positions (missing or
reversed references fail), the expanded ranges are accumulated in an ``IntervalUnion``
(the authoritative contexts), and the streamed coverage is checked against it. Writing the
evidence document is then a second pass that copies the spooled units, never re-parsing
the transcript. Memory is bounded by the references, the published unit IDs and the
window, never by the transcript.
"""

from __future__ import annotations

import bisect
import tempfile
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from streamer.framework.errors import LaneOutputError, SourceError, SourceReferenceError
from streamer.framework.intervals import IntervalUnion
from streamer.framework.lane_outputs import DocumentSource
from streamer.framework.safe_text import quoted
from streamer.framework.source_reader import DocumentIdentity
from streamer.framework.source_reference import SourceReference
from streamer.framework.source_units import published_unit

from .request import Citation, EvidenceRequest

SPOOL_IN_MEMORY = 16 << 20


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


def project_evidence(
    request: EvidenceRequest, units: Iterable[dict[str, Any]], identity_of: Any
) -> ProjectedEvidence:
    """Project ``request`` over the validated ``units`` of a source document.

    ``identity_of()`` returns the document's identity once ``units`` is exhausted (the
    ``SourceDocumentReader.identity`` property, passed as a callable).
    """
    window = request.window_units
    references = _References(request.citations)
    starts, ends, wanted = references.starts, references.ends, references.wanted
    positions: dict[str, int] = {}
    open_count = 0
    last_closed = -(1 << 62)  # position of the latest end of a reference whose start was seen

    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    write = spool.write
    dumps = orjson.dumps
    published: set[str] = set()
    contexts: list[Context] = []
    run: Context | None = None
    spool_size = 0
    ring: deque[dict[str, Any]] = deque()

    def decide(position: int, unit: dict[str, Any]) -> None:
        nonlocal run, spool_size
        if open_count > 0 or last_closed >= position - window:
            unit_id = unit["unit_id"]
            if unit_id in published:
                raise SourceError(
                    f"unit ID {quoted(unit_id)} appears twice among the published units",
                    hint="unit IDs must be unique in a source document",
                )
            published.add(unit_id)
            data = dumps(published_unit(unit))
            if run is None:
                run = Context(position, position, unit_id, unit_id, spool_size, spool_size)
            else:
                data = b"," + data
                run.end_position = position
                run.end_unit_id = unit_id
            write(data)
            spool_size += len(data)
            run.spool_end = spool_size
        elif run is not None:
            contexts.append(run)
            run = None

    position = -1
    try:
        for position, unit in enumerate(units):
            unit_id = unit["unit_id"]
            if unit_id in wanted:
                if unit_id in positions:
                    raise SourceError(
                        f"unit ID {quoted(unit_id)} appears twice (at positions "
                        f"{positions[unit_id]} and {position}) and is referenced",
                        hint="unit IDs must be unique in a source document",
                    )
                positions[unit_id] = position
                for index in starts.get(unit_id, ()):
                    end_id = references.distinct[index].end_unit_id
                    if end_id != unit_id and end_id in positions:
                        _reversed(references.first[index])
                    open_count += 1
                for index in ends.get(unit_id, ()):
                    if references.distinct[index].start_unit_id in positions:
                        open_count -= 1
                        last_closed = position
            ring.append(unit)
            if len(ring) > window:
                decide(position - window, ring.popleft())
        first_in_ring = position + 1 - len(ring)
        for offset, unit in enumerate(ring):
            decide(first_in_ring + offset, unit)
        if run is not None:
            contexts.append(run)
        identity: DocumentIdentity = identity_of()
        check_sources(request.sources, identity)
        union = _resolve(references, positions, window, identity.unit_count)
        if [(context.start_position, context.end_position) for context in contexts] != list(union):
            raise RuntimeError("streamed coverage disagrees with the interval union")
        _attach_references(contexts, references, positions)
    except BaseException:
        spool.close()
        raise
    return ProjectedEvidence(identity, request.lanes, window, contexts, spool)


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
) -> IntervalUnion:
    union = IntervalUnion()
    last = unit_count - 1
    for index, reference in enumerate(references.distinct):
        citation = references.first[index]
        for unit_id in reference:
            if unit_id not in positions:
                raise SourceReferenceError(
                    f"{citation.where()}: unit ID {quoted(unit_id)} is not in the source document"
                )
        start, end = positions[reference.start_unit_id], positions[reference.end_unit_id]
        if start > end:
            _reversed(citation)
        union.add(max(0, start - window), min(last, end + window))
    return union


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

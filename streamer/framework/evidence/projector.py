"""The streaming evidence projector.

One pass over the source document does all the reading:

* every unit is validated and digested by the ``SourceDocumentReader``, a batch at a time;
* the positions of the referenced unit IDs are indexed as they go by;
* coverage is resolved on the fly: the last ``window_units`` units wait (``pending``) until
  it is known whether a reference starting up to ``window_units`` later reaches back to
  them, and each covered unit is serialized once, into a spool, grouped into the
  contexts as they close. These streamed contexts are what is published.

After the pass, every reference is resolved through the indexed positions (missing or
reversed references fail), and the expanded ranges are merged independently
(``merged_runs``): the streamed contexts must equal them (a difference is a bug, never an
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

The parts: ``coverage`` (the references, indexed by the unit IDs at their ends, and the
coverage decided while the source streams), ``spool`` (the covered units serialized into
contexts, the duplicate check), ``intervals`` (the one merge); this module runs the pass,
checks it and attaches each reference to its context.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import LaneOutputError, SourceReferenceError
from streamer.framework.evidence.intervals import merged_runs
from streamer.framework.kinds.lane_outputs import DocumentSource
from streamer.framework.source.reader import DocumentIdentity
from streamer.framework.source.unit_batches import Batch

from .coverage import Coverage, References
from .request import EvidenceRequest
from .spool import Context, SpoolFull, SpoolWriter, open_spool, spool_error


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
    references = References(request.citations)
    coverage = Coverage(references, window)
    spool = open_spool()
    writer = SpoolWriter(spool)
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
        except SpoolFull as full:
            raise spool_error(full, coverage) from None
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
    references: References, positions: dict[str, int], window: int, unit_count: int
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
        # A reversed reference never gets here: ``Coverage.read`` fails on it when its
        # start unit is read after its end unit.
        start, end = positions[reference.start_unit_id], positions[reference.end_unit_id]
        expanded.append((max(0, start - window), min(last, end + window)))
    return merged_runs(expanded)


def _attach_references(
    contexts: list[Context], references: References, positions: dict[str, int]
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

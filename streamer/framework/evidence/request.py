"""The domain-neutral evidence request assembled from selected lane outputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.framework.kinds.lane_outputs import DocumentSource, LaneOutput
from streamer.framework.source.reference import SourceReference


@dataclass(frozen=True)
class Citation:
    """One direct reference as cited: by which lane, record and reference position."""

    lane_id: str
    record_index: int
    reference_index: int
    reference: SourceReference

    def where(self) -> str:
        return (
            f"lane {self.lane_id}: $.records[{self.record_index}] reference {self.reference_index}"
        )


@dataclass(frozen=True)
class EvidenceRequest:
    """What the projector needs, and nothing domain-specific.

    ``lanes`` is the configured allowlist (sorted), ``sources`` what each contributing lane
    says its source document is, ``citations`` defensive copies of every direct reference
    of every accepted record of the contributing lanes, in lane then record order.
    """

    lanes: tuple[str, ...]
    window_units: int
    sources: tuple[tuple[str, DocumentSource], ...]
    citations: tuple[Citation, ...]

    def referenced_ids(self) -> frozenset[str]:
        """The unit IDs at either end of a reference: what the projector looks for in the
        source (a reader given them finds them beside the parse: ``--jobs``)."""
        return frozenset(
            unit_id
            for citation in self.citations
            for unit_id in (citation.reference.start_unit_id, citation.reference.end_unit_id)
        )


def build_evidence_request(
    lanes: Sequence[str], window_units: int, outputs: Iterable[LaneOutput[Any]]
) -> EvidenceRequest:
    """Use each kind's typed projection to collect the direct references of its records."""
    sources: list[tuple[str, DocumentSource]] = []
    citations: list[Citation] = []
    for output in sorted(outputs, key=lambda lane: lane.lane_id):
        projection = output.kind.evidence
        if projection is None:
            raise ValueError(f"artifact kind {output.kind.name} cannot expose evidence")
        sources.append((output.lane_id, output.source))
        for record_index, record in enumerate(output.records):
            for reference_index, reference in enumerate(projection(record)):
                copy = SourceReference(str(reference.start_unit_id), str(reference.end_unit_id))
                citations.append(Citation(output.lane_id, record_index, reference_index, copy))
    return EvidenceRequest(tuple(sorted(lanes)), window_units, tuple(sources), tuple(citations))

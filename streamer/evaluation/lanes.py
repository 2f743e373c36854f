"""A bundle's lanes scored against a reference: each reference lane against the bundle's
lane of the same artifact kind (the one with the same lane ID when the bundle has several
of that kind), the published records within the reference's scope only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamer.evaluation.identity import Canon, KindIdentity
from streamer.evaluation.matching import Item, Span, match_lane, overlaps, spans
from streamer.evaluation.reference import Reference, ReferenceError, ReferenceLane, cited
from streamer.evaluation.scores import Counts, LaneScore, refs_json
from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import InputError
from streamer.framework.kinds.registry import ArtifactKind


@dataclass(frozen=True)
class PublishedLane:
    """A lane of the bundle: its ID, kind and records (typed, in published order)."""

    lane_id: str
    kind: ArtifactKind[Any]
    records: Sequence[Any]


def check_units(reference: Reference, positions: Mapping[str, int], where: str) -> None:
    """Every range the reference cites names units of the source, the first not after the
    last (``ReferenceError`` naming the JSON path and the unit ID)."""
    located = [("$.scope", ref) for ref in reference.scope]
    for lane_index, lane in enumerate(reference.lanes):
        for index, expected in enumerate(lane.records):
            path = f"$.lanes[{lane_index}].records[{index}]"
            located += [(path, ref) for ref in cited(lane.kind, expected.record)]
    for path, ref in located:
        for unit in (ref.start_unit_id, ref.end_unit_id):
            if unit not in positions:
                raise ReferenceError(
                    f"{where}: {path} cites unit {quoted(unit)}, which the source does not hold",
                    hint="a reference names the units of the bundle's source document",
                )
        if positions[ref.start_unit_id] > positions[ref.end_unit_id]:
            raise ReferenceError(f"{where}: {path} cites a range that ends before it starts")


def lane_of(
    lane: ReferenceLane, bundle: Sequence[PublishedLane], where: str
) -> PublishedLane | None:
    same = [published for published in bundle if published.kind.name == lane.kind.name]
    if len(same) > 1:
        named = [published for published in same if published.lane_id == lane.lane_id]
        if not named:
            raise InputError(
                f"{where}: the bundle has {len(same)} lanes of artifact kind {lane.kind.name} "
                f"and none is {lane.lane_id}",
                hint="name the reference's lane as the bundle's lane it scores",
            )
        return named[0]
    return same[0] if same else None


def score_lanes(
    reference: Reference,
    bundle: Sequence[PublishedLane],
    positions: Mapping[str, int],
    canon: Canon,
    tolerance: int,
    where: str,
) -> list[LaneScore]:
    """The score of each reference lane, in the reference's order."""
    scope = spans(reference.scope, positions)
    scores = []
    for lane in reference.lanes:
        published = lane_of(lane, bundle, where)
        scores.append(_score(lane, published, scope, positions, canon, tolerance))
    return scores


def _score(
    lane: ReferenceLane,
    published: PublishedLane | None,
    scope: Sequence[Span],
    positions: Mapping[str, int],
    canon: Canon,
    tolerance: int,
) -> LaneScore:
    kind = lane.kind
    identity = KindIdentity(kind, canon)
    records = () if published is None else published.records
    found = []
    for index, published_record in enumerate(records):
        cited_spans = spans(cited(kind, published_record), positions)
        if overlaps(scope, cited_spans):
            found.append(Item(index, identity.of(published_record), cited_spans))
    expected = [
        Item(index, identity.of(item.record), spans(cited(kind, item.record), positions))
        for index, item in enumerate(lane.records)
    ]
    match = match_lane(found, expected, lambda index: lane.records[index].optional, tolerance)
    required = sum(not item.optional for item in lane.records)
    counts = Counts(
        required,
        len(found) - len(match.set_aside),
        len(match.pairs),
        sum(pair.distance == 0 for pair in match.pairs),
    )

    def record(index: int) -> dict[str, Any]:
        return {
            "record": index,
            "record_id": kind.record_id(records[index]),
            "source_refs": refs_json(cited(kind, records[index])),
        }

    def reference(index: int) -> dict[str, Any]:
        return {
            "reference": index,
            "reference_refs": refs_json(cited(kind, lane.records[index].record)),
        }

    matched = [
        {**record(pair.published), **reference(pair.expected), "distance": pair.distance}
        for pair in match.pairs
    ]
    return LaneScore(
        lane.lane_id if published is None else published.lane_id,
        kind.name,
        counts,
        matched,
        [reference(index) for index in match.missing],
        [record(index) for index in match.spurious],
        absent=published is None,
    )


def all_missing(reference: Reference) -> list[LaneScore]:
    """The scores of a session that published nothing: every required record missing."""
    scores = []
    for lane in reference.lanes:
        required = [i for i, item in enumerate(lane.records) if not item.optional]
        missing = [
            {"reference": i, "reference_refs": refs_json(cited(lane.kind, lane.records[i].record))}
            for i in required
        ]
        scores.append(
            LaneScore(
                lane.lane_id, lane.kind.name, Counts(len(required)), missing=missing, absent=True
            )
        )
    return scores

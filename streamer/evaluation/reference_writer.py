"""A reference document written from records: ``streamer eval --reference-from BUNDLE``.

The bytes are made for a person to correct: two-space indentation down to the lanes, then
one record a line (members in the kind's order, the ID member left out), UTF-8, one
trailing newline; identical records give identical bytes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from streamer.evaluation.reference import ARTIFACT_KIND, OPTIONAL, SCHEMA, Reference
from streamer.framework.kinds.lane_outputs import DocumentSource
from streamer.framework.kinds.registry import ArtifactKind


@dataclass(frozen=True)
class LaneRecords:
    """The records of one lane to write: the kind's records or model-facing records."""

    lane_id: str
    kind: ArtifactKind[Any]
    records: Sequence[Any]
    optional: Sequence[bool] = ()
    rules: str | None = None


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _record(lane: LaneRecords, index: int) -> dict[str, Any]:
    data = lane.kind.record_to_json(lane.records[index])
    data.pop(lane.kind.id_member or "", None)
    if index < len(lane.optional) and lane.optional[index]:
        data[OPTIONAL] = True
    return data


def reference_bytes(
    source: DocumentSource,
    lanes: Sequence[LaneRecords],
    *,
    scope: Sequence[dict[str, str]] = (),
    rules: str | None = None,
) -> bytes:
    """The reference document of ``lanes``' records, for the document ``source``."""
    head: dict[str, Any] = {
        "artifact_kind": ARTIFACT_KIND,
        "schema": SCHEMA.to_json(),
        "source": {"document_id": source.document_id, "semantic_digest": source.semantic_digest},
    }
    if scope:
        head["scope"] = list(scope)
    if rules is not None:
        head["rules"] = rules
    lines = ["{"]
    lines += [f"  {_line(name)}: {_line(value)}," for name, value in head.items()]
    lines.append('  "lanes": [')
    for position, lane in enumerate(lanes):
        lines.append("    {")
        lines.append(f'      "lane_id": {_line(lane.lane_id)},')
        lines.append(f'      "artifact_kind": {_line(lane.kind.name)},')
        if lane.rules is not None:
            lines.append(f'      "rules": {_line(lane.rules)},')
        records = [_line(_record(lane, index)) for index in range(len(lane.records))]
        if records:
            lines.append('      "records": [')
            lines += [f"        {record}," for record in records[:-1]]
            lines += [f"        {records[-1]}", "      ]"]
        else:
            lines.append('      "records": []')
        lines.append("    }" + ("," if position < len(lanes) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines).encode("utf-8")


def rewritten(reference: Reference) -> bytes:
    """``reference`` written again in this form (its records canonical, in its order)."""
    lanes = [
        LaneRecords(
            lane.lane_id,
            lane.kind,
            [expected.record for expected in lane.records],
            [expected.optional for expected in lane.records],
            lane.rules,
        )
        for lane in reference.lanes
    ]
    scope = [ref.to_json() for ref in reference.scope]
    return reference_bytes(reference.source, lanes, scope=scope, rules=reference.rules)

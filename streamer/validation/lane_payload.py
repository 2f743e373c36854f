"""``lanes/<lane_id>.json``: each lane payload against its schema and descriptor; then, when
the evidence context is published, each allowlisted lane against it.

Every direct reference of an allowlisted lane payload must be a reference the evidence
document attributes to that lane, and every reference it attributes to a lane must be
cited by that lane's payload. References are read through each artifact kind's typed
projection, never by looking for reference-like members.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamer.framework.errors import LaneOutputError
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.output import evidence_context
from streamer.output.bundle_documents import lane_file
from streamer.validation.bundle_files import Unreadable, read_document
from streamer.validation.evidence_check import Cited
from streamer.validation.index_check import Described, check_descriptor
from streamer.validation.report import BundleReport
from streamer.validation.schema_rules import schema_problems


def check_lane_payload(
    folder: Path, entry: Described, source: Any, report: BundleReport
) -> dict[str, Any] | None:
    """The payload when it satisfies its schema and agrees with its descriptor."""
    try:
        document = read_document(folder, entry.file, report)
    except Unreadable:
        return None
    problems = schema_problems(document, entry.schema_id)
    for line in problems:
        report.problem(entry.file, line)
    if problems:
        return None
    records = document.get("records")
    count = len(records) if isinstance(records, list) else None
    members = {name: document.get(name) for name in ("artifact_kind", "schema", "lane_id")}
    members["source"] = document.get("source")
    if not check_descriptor(entry, members, count, source, report):
        return None
    payload: dict[str, Any] = document
    return payload


def check_lane_coverage(
    allowlist: list[str],
    payloads: dict[str, dict[str, Any]],
    cited: Cited,
    registry: ArtifactKindRegistry,
    report: BundleReport,
) -> None:
    """``payloads``: the valid payload of each lane, by lane ID; ``cited``: where the
    evidence document attributes each ``(start, end, lane)`` reference."""
    covered: set[tuple[str, str, str]] = set()
    checked: set[str] = set()
    for lane_id in allowlist:
        if lane_id not in payloads:
            continue  # excluded from the run, or completed without an output
        file = lane_file(lane_id)
        document = payloads[lane_id]
        name = document["artifact_kind"]
        kind = registry.get(name, where=file) if name in registry else None
        if kind is None or kind.evidence is None:
            report.problem(file, "allowlisted, but its artifact kind cannot expose evidence")
            continue
        try:
            output = parse_lane_output(document, lane_id, kind, file)
        except LaneOutputError as error:
            report.problem(file, error.one_line().removeprefix(f"{file}: "))
            continue
        checked.add(lane_id)
        for r_index, record in enumerate(output.records):
            for ref_index, reference in enumerate(kind.evidence(record)):
                key = (reference.start_unit_id, reference.end_unit_id, lane_id)
                covered.add(key)
                if key not in cited:
                    report.problem(
                        file,
                        f"$.records[{r_index}] reference {ref_index} is not in "
                        f"{evidence_context.FILE_NAME} for lane {lane_id}",
                    )
    for key, where in cited.items():
        if key[2] in checked and key not in covered:
            report.problem(
                evidence_context.FILE_NAME,
                f"{where}: lane {key[2]} does not cite this reference in {lane_file(key[2])}",
            )

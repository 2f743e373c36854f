"""``lanes/<lane_id>.json``: each lane payload against its schema and descriptor; then, when
the evidence context is published, each allowlisted lane against it.

Every direct reference of an allowlisted lane payload must be a reference the evidence
document attributes to that lane, and every reference it attributes to a lane must be
cited by that lane's payload. References are read through each artifact kind's typed
projection, never by looking for reference-like members.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamer.framework.errors.types import LaneOutputError
from streamer.framework.kinds.lane_outputs import LaneOutput, parse_lane_output
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from streamer.output import evidence_context
from streamer.output.bundle_documents import lane_file
from streamer.output.schema_catalog import lane_schema, schema_ids
from streamer.validation.bundle_files import LANE_PAYLOAD_MAX_BYTES, Unreadable, read_document
from streamer.validation.bundle_report import BundleReport
from streamer.validation.evidence_shape import Cited
from streamer.validation.index_check import Described, check_descriptor
from streamer.validation.schema_rules import schema_problems, schema_problems_in


@dataclass(frozen=True)
class Payload:
    """A lane payload that satisfies its schema and agrees with its descriptor, parsed by
    its artifact kind (``output`` is ``None`` when the registry does not know the kind)."""

    document: dict[str, Any]
    output: LaneOutput[Any] | None


def check_lane_payload(
    folder: Path,
    entry: Described,
    source: Any,
    registry: ArtifactKindRegistry,
    report: BundleReport,
) -> Payload | None:
    """The payload, when it satisfies its schema, agrees with its descriptor and its kind.

    The kind's own parser (the declaration the schema is generated from) is tried first;
    jsonschema runs only when it fails, or when the registry does not know the kind, to
    name what breaks the schema."""
    try:
        document = read_document(folder, entry.file, report, LANE_PAYLOAD_MAX_BYTES)
    except Unreadable:
        return None
    kind = _kind(document, registry)
    output: LaneOutput[Any] | None = None
    refused: LaneOutputError | None = None
    if kind is not None and kind.schema.id == entry.schema_id:
        try:
            output = parse_lane_output(document, entry.descriptor["lane_id"], kind, entry.file)
        except LaneOutputError as error:
            refused = error
    if output is None or document["source"] != source:
        problems = _schema_problems(document, entry.schema_id, registry)
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
    if refused is not None:  # what the schema cannot say: record IDs repeated
        report.problem(entry.file, refused.one_line().removeprefix(f"{entry.file}: "))
        return None
    return Payload(document, output)


def _schema_problems(document: Any, schema_id: str, registry: ArtifactKindRegistry) -> list[str]:
    """The shipped schema's problems, or those of the schema generated from a plugin kind."""
    if schema_id in schema_ids():
        return schema_problems(document, schema_id)
    schema = lane_schema(schema_id, registry)
    assert schema is not None  # the index names only known schemas (index_check)
    return schema_problems_in(document, schema, schema_id)


def _kind(document: Any, registry: ArtifactKindRegistry) -> ArtifactKind[Any] | None:
    name = document.get("artifact_kind") if isinstance(document, dict) else None
    if not isinstance(name, str) or name not in registry:
        return None
    return registry.get(name, where="")


def check_lane_coverage(
    allowlist: list[str],
    payloads: dict[str, Payload],
    cited: Cited,
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
        output = payloads[lane_id].output
        if output is None or output.kind.evidence is None:
            report.problem(file, "allowlisted, but its artifact kind cannot expose evidence")
            continue
        checked.add(lane_id)
        evidence = output.kind.evidence
        for r_index, record in enumerate(output.records):
            for ref_index, reference in enumerate(evidence(record)):
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

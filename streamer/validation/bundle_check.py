"""Checking a bundle folder: each document by its own checker, in the order they depend on
each other (index, lane payloads, chunk map, evidence context, then the lanes against the
evidence)."""

from __future__ import annotations

import os
from pathlib import Path

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.output import evidence_context
from streamer.output.bundle_documents import CHUNK_MAP_FILE, INDEX_FILE
from streamer.output.schema_catalog import known_schema_ids
from streamer.validation.bundle_files import (
    INDEX_MAX_BYTES,
    NOT_REGULAR,
    Unreadable,
    present_files,
    read_document,
)
from streamer.validation.bundle_report import BundleReport
from streamer.validation.chunk_map import check_chunk_map
from streamer.validation.evidence_check import check_evidence
from streamer.validation.evidence_units import EvidenceSeen
from streamer.validation.index_check import check_index
from streamer.validation.lane_payload import Payload, check_lane_coverage, check_lane_payload


def validate(
    folder: Path, registry: ArtifactKindRegistry, seen: EvidenceSeen | None = None
) -> BundleReport:
    """Check the bundle in ``folder``; ``registry`` knows the artifact kinds of its lanes.
    ``seen`` is told the evidence document's units and contexts as they are checked."""
    if not folder.is_dir():
        if os.path.lexists(folder):
            report_of = folder.with_suffix("") if folder.suffix == ".html" else None
            hint = (
                f"give the bundle folder, {shown_path(report_of)}: {folder.name} is its report"
                if report_of is not None and report_of.is_dir()
                else "give the folder a bundle was published in"
            )
            raise ConfigurationError(
                f"{shown_path(folder)} is a file, not a bundle folder", hint=hint
            )
        raise ConfigurationError(f"bundle folder {shown_path(folder)} does not exist")
    report = BundleReport()
    if not os.path.lexists(folder / INDEX_FILE):  # not a bundle: decided before the walk
        report.problem(INDEX_FILE, "missing: a bundle is described by its index")
        return report
    present = present_files(folder)
    report.files = tuple(sorted(present))
    if INDEX_FILE not in present:
        report.problem(INDEX_FILE, "missing: a bundle is described by its index")
        return report
    if not present[INDEX_FILE]:
        report.problem(INDEX_FILE, NOT_REGULAR)
        return report
    try:
        index = read_document(folder, INDEX_FILE, report, INDEX_MAX_BYTES)
    except Unreadable:
        return report
    described = check_index(index, report, known_schema_ids(registry))
    if described is None:
        return report
    for file, entry in described.items():
        if file not in present:
            report.problem(file, f"missing: index.json describes it at {entry.path}")
    for file in sorted(set(present) - set(described) - {INDEX_FILE}):
        report.problem(file, "present but not described in index.json")
    readable = {file for file in described if present.get(file)}
    for file in sorted(file for file in described if file in present and file not in readable):
        report.problem(file, NOT_REGULAR)
    source = index["source"]
    documents: dict[str, Payload] = {}
    for entry in described.values():
        if "lane_id" in entry.descriptor and entry.file in readable and entry.known_schema:
            payload = check_lane_payload(folder, entry, source, registry, report)
            if payload is not None:
                documents[entry.file] = payload
    lanes = {descriptor["lane_id"]: descriptor["file"] for descriptor in index["lanes"]}
    anchors = None
    chunk_map = described.get(CHUNK_MAP_FILE)
    if chunk_map is not None and CHUNK_MAP_FILE in readable:
        anchors = check_chunk_map(folder, chunk_map, source, report)
    evidence = described.get(evidence_context.FILE_NAME)
    if evidence is not None and evidence.file in readable:
        checked = check_evidence(folder, evidence, source, anchors, lanes, report, seen)
        if checked is not None:
            payloads = {lane: documents[file] for lane, file in lanes.items() if file in documents}
            check_lane_coverage(checked.allowlist, payloads, checked.cited, report)
    return report

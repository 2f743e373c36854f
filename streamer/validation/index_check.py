"""``index.json``: its schema, and the files it describes.

The index is checked against its schema first (nothing else can be trusted without it);
then each descriptor: a lane payload's ``file`` is ``lanes/<lane_id>.json``, lanes are
sorted by distinct ``lane_id``, and every ``schema.id`` is one streamer knows (shipped, or
a lane payload schema of a kind of the run's registry).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from streamer.output import evidence_context
from streamer.output.bundle_documents import INDEX_FILE, INDEX_SCHEMA, lane_file
from streamer.validation.bundle_report import BundleReport
from streamer.validation.schema_rules import schema_problems


@dataclass(frozen=True)
class Described:
    """A file the index describes: the JSON path of its descriptor, and the descriptor."""

    file: str
    path: str
    descriptor: dict[str, Any]
    known_schema: bool = True

    @property
    def schema_id(self) -> str:
        schema_id: str = self.descriptor["schema"]["id"]
        return schema_id


def check_index(
    index: Any, report: BundleReport, known: Collection[str]
) -> dict[str, Described] | None:
    """The files ``index`` describes, by name, or ``None`` when it breaks its schema
    (``known``: the schema IDs a descriptor may name)."""
    problems = schema_problems(index, INDEX_SCHEMA.id)
    for line in problems:
        report.problem(INDEX_FILE, line)
    if problems:
        return None
    report.document_id = index["source"]["document_id"]
    entries = [(f"$.lanes[{i}]", lane) for i, lane in enumerate(index["lanes"])]
    entries.append(("$.chunk_map", index["chunk_map"]))
    if evidence_context.DESCRIPTOR in index:
        entries.append((f"$.{evidence_context.DESCRIPTOR}", index[evidence_context.DESCRIPTOR]))
    described: dict[str, Described] = {}
    previous = ""
    for path, descriptor in entries:
        file = descriptor["file"]
        if "lane_id" in descriptor:
            lane_id = descriptor["lane_id"]
            if file != lane_file(lane_id):
                report.problem(INDEX_FILE, f"{path}.file is not {lane_file(lane_id)}")
            if lane_id <= previous:
                report.problem(INDEX_FILE, f"{path}: lanes are not sorted by distinct lane_id")
            previous = lane_id
        entry = Described(file, path, descriptor, descriptor["schema"]["id"] in known)
        if not entry.known_schema:
            report.problem(INDEX_FILE, f"{path}.schema.id names no schema streamer knows")
        described.setdefault(file, entry)
    return described


def check_descriptor(
    entry: Described,
    members: dict[str, Any],
    record_count: int | None,
    source: Any,
    report: BundleReport,
) -> bool:
    """Whether a document agrees with its descriptor (``members``: its ``artifact_kind``,
    ``schema`` and ``lane_id`` as far as it has them; ``record_count``: how many records
    it has, ``None`` for none) and names the index's source (reported, not fatal)."""
    descriptor = entry.descriptor
    mismatches: list[str] = [
        name
        for name in ("artifact_kind", "schema", "lane_id")
        if name in descriptor and members.get(name) != descriptor[name]
    ]
    if "record_count" in descriptor and record_count != descriptor["record_count"]:
        mismatches.append("record_count")
    for name in mismatches:
        report.problem(
            entry.file,
            f"$.{name} disagrees with its descriptor ({INDEX_FILE} {entry.path}.{name})",
        )
    if members.get("source") != source:
        report.problem(entry.file, "$.source is not the source of index.json")
    return not mismatches

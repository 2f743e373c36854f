"""Checking a published bundle as a consumer would, with nothing but the bundle.

1. ``index.json`` against its schema; every file it describes exists, and no other file
   is present.
2. Each described document against the schema its descriptor names, and against the
   descriptor itself (artifact kind, schema, lane ID, record count) and the index's source.
3. The chunk map: chunk IDs in sequence, chunk sizes as its chunking says.
4. The evidence context, when published. Positions are those of the units within the
   evidence document: no unit ID twice; each context's bounds are its first and last
   units; each reference lies inside its context's bounds, start before end, references
   in order and distinct, lanes sorted and allowlisted; each context is exactly the
   window-expanded union of its references. The chunk map fixes the source position of
   every chunk's first and last unit: where units with a fixed position appear, they must
   be in source order, contiguous within a context, and contexts apart.
5. Every direct reference of each allowlisted lane payload is a reference of the evidence
   document cited by that lane, and every reference the evidence document attributes to a
   lane is cited by that lane's payload. References are read through each artifact kind's
   typed projection, never by looking for reference-like members.

Every problem is one content-safe line: file names, JSON paths, lane and unit IDs, never
transcript text or record values.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from streamer.framework.chunking.chunker import chunk_id
from streamer.framework.errors import ConfigurationError, InputError, LaneOutputError
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.regular_files import read_regular_file
from streamer.framework.safe_text import quoted
from streamer.output import evidence_context
from streamer.output.bundle_documents import CHUNK_MAP_FILE, INDEX_FILE, INDEX_SCHEMA, lane_file
from streamer.output.schema_catalog import load_schema, schema_ids


@dataclass
class BundleReport:
    """The outcome of ``validate``: ``problems`` is empty when the bundle is valid."""

    document_id: str | None = None
    files: tuple[str, ...] = ()
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems


@cache
def _validator(schema_id: str) -> Any:
    """A draft 2020-12 validator (format checking off); jsonschema loads on first use."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(schema_id))


def _describe(error: Any) -> list[str]:
    """Where and which rule, never the offending value (member names come from the schema)."""
    where = error.json_path
    if error.validator == "required":
        return [
            f"{where}.{name} is required"
            for name in error.validator_value
            if name not in error.instance
        ]
    if error.validator == "additionalProperties":
        return [f"{where} has a member its schema does not allow"]
    return [f"{where} breaks the schema rule {error.validator!r}"]


def _present_files(folder: Path) -> set[str]:
    present: set[str] = set()
    for root, _, files in os.walk(folder):
        relative = Path(root).relative_to(folder)
        present.update((relative / name).as_posix() for name in files)
    return present


@dataclass(frozen=True)
class _Anchors:
    """Source positions the chunk map fixes: each chunk's first and last unit."""

    positions: dict[str, int]
    last_position: int


class _Validation:
    def __init__(self, folder: Path, registry: ArtifactKindRegistry) -> None:
        self.folder = folder
        self.registry = registry
        self.report = BundleReport()

    def problem(self, file: str, message: str) -> None:
        self.report.problems.append(f"{file}: {message}")

    def document(self, file: str, schema_id: str) -> Any | None:
        """The parsed document if it is valid JSON satisfying ``schema_id``."""
        try:
            # Only a regular file: a FIFO member must not hang, nor /dev/zero read forever.
            data = read_regular_file(self.folder / file, sys.maxsize, "it", InputError)
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            self.problem(file, "not valid JSON")
            return None
        except InputError as error:
            self.problem(file, error.message.removeprefix("it "))
            return None
        except OSError as error:
            self.problem(file, f"cannot be read ({error.strerror})")
            return None
        failures = sorted(
            _validator(schema_id).iter_errors(document),
            key=lambda failure: (failure.json_path, str(failure.validator)),
        )
        lines = [line for failure in failures for line in _describe(failure)]
        for line in dict.fromkeys(lines):  # one line per problem, in order
            self.problem(file, f"{line} ({schema_id})")
        return None if failures else document

    # -- the index and the files ------------------------------------------------------

    def run(self) -> BundleReport:
        present = _present_files(self.folder)
        self.report.files = tuple(sorted(present))
        if INDEX_FILE not in present:
            self.problem(INDEX_FILE, "missing: a bundle is described by its index")
            return self.report
        index = self.document(INDEX_FILE, INDEX_SCHEMA.id)
        if index is None:
            return self.report
        self.report.document_id = index["source"]["document_id"]
        described = self.described(index)
        for file, (path, _) in described.items():
            if file not in present:
                self.problem(file, f"missing: index.json describes it at {path}")
        for file in sorted(present - set(described) - {INDEX_FILE}):
            self.problem(file, "present but not described in index.json")
        documents: dict[str, Any] = {}
        for file, (path, descriptor) in described.items():
            if file in present:
                document = self.described_document(file, path, descriptor, index["source"])
                if document is not None:
                    documents[file] = document
        anchors = None
        if CHUNK_MAP_FILE in documents:
            anchors = self.chunk_map(documents[CHUNK_MAP_FILE])
        evidence = documents.get(evidence_context.FILE_NAME)
        if evidence is not None:
            lanes = {descriptor["lane_id"]: descriptor["file"] for descriptor in index["lanes"]}
            self.evidence(evidence, lanes, documents, anchors)
        return self.report

    def described(self, index: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every described file: the JSON path of its descriptor, and the descriptor."""
        described: dict[str, tuple[str, dict[str, Any]]] = {}
        entries = [(f"$.lanes[{i}]", lane) for i, lane in enumerate(index["lanes"])]
        entries.append(("$.chunk_map", index["chunk_map"]))
        if evidence_context.DESCRIPTOR in index:
            entries.append((f"$.{evidence_context.DESCRIPTOR}", index[evidence_context.DESCRIPTOR]))
        previous = ""
        for path, descriptor in entries:
            file = descriptor["file"]
            if "lane_id" in descriptor:
                lane_id = descriptor["lane_id"]
                if file != lane_file(lane_id):
                    self.problem(INDEX_FILE, f"{path}.file is not {lane_file(lane_id)}")
                if lane_id <= previous:
                    self.problem(INDEX_FILE, f"{path}: lanes are not sorted by distinct lane_id")
                previous = lane_id
            if descriptor["schema"]["id"] not in schema_ids():
                self.problem(INDEX_FILE, f"{path}.schema.id names no schema streamer knows")
            described.setdefault(file, (path, descriptor))
        return described

    def described_document(
        self, file: str, path: str, descriptor: dict[str, Any], source: dict[str, Any]
    ) -> Any | None:
        schema_id = descriptor["schema"]["id"]
        document = self.document(file, schema_id) if schema_id in schema_ids() else None
        if document is None:
            return None
        mismatches: list[str] = [
            name
            for name in ("artifact_kind", "schema", "lane_id")
            if name in descriptor and document.get(name) != descriptor[name]
        ]
        records = document.get("records")
        if "record_count" in descriptor and (
            records is None or len(records) != descriptor["record_count"]
        ):
            mismatches.append("record_count")
        for name in mismatches:
            self.problem(file, f"$.{name} disagrees with its descriptor (index.json {path}.{name})")
        if document["source"] != source:
            self.problem(file, "$.source is not the source of index.json")
        return None if mismatches else document

    # -- the chunk map ----------------------------------------------------------------

    def chunk_map(self, document: dict[str, Any]) -> _Anchors | None:
        max_units = document["chunking"]["max_units"]
        step = max_units - document["chunking"]["overlap_units"]
        chunks = document["chunks"]
        sound = step > 0
        if not sound:
            self.problem(CHUNK_MAP_FILE, "$.chunking.overlap_units must be below max_units")
        for index, chunk in enumerate(chunks):
            path = f"$.chunks[{index}]"
            if chunk["chunk_id"] != chunk_id(index):
                self.problem(CHUNK_MAP_FILE, f"{path}.chunk_id is not {chunk_id(index)}")
                sound = False
            last = index == len(chunks) - 1
            count = chunk["unit_count"]
            if count > max_units or (not last and count != max_units):
                self.problem(CHUNK_MAP_FILE, f"{path}.unit_count does not follow $.chunking")
                sound = False
        if not sound:
            return None
        positions: dict[str, int] = {}
        for index, chunk in enumerate(chunks):
            start = index * step
            positions.setdefault(chunk["start_unit_id"], start)
            positions.setdefault(chunk["end_unit_id"], start + chunk["unit_count"] - 1)
        last_position = (len(chunks) - 1) * step + chunks[-1]["unit_count"] - 1 if chunks else -1
        return _Anchors(positions, last_position)

    # -- the evidence context ---------------------------------------------------------

    def evidence(
        self,
        document: dict[str, Any],
        lanes: dict[str, str],
        documents: dict[str, Any],
        anchors: _Anchors | None,
    ) -> None:
        """``lanes``: the file of each lane payload the index describes; ``documents``: the
        described documents that passed their own checks."""
        file = evidence_context.FILE_NAME
        allowlist = document["lanes"]
        if allowlist != sorted(allowlist):
            self.problem(file, "$.lanes is not sorted")
        window = document["window_units"]
        seen: dict[str, str] = {}
        cited: dict[tuple[str, str, str], str] = {}
        previous_end: int | None = None  # source position of the previous context's end
        last_fixed = -1  # the latest source position fixed by the chunk map
        for c_index, context in enumerate(document["contexts"]):
            path = f"$.contexts[{c_index}]"
            units = context["units"]
            index_of: dict[str, int] = {}
            offset: int | None = None  # source position of the context's first unit
            for u_index, unit in enumerate(units):
                unit_id = unit["unit_id"]
                where = f"{path}.units[{u_index}]"
                if unit_id in seen:
                    self.problem(file, f"{where}: unit {quoted(unit_id)} repeats {seen[unit_id]}")
                else:
                    seen[unit_id] = where
                index_of.setdefault(unit_id, u_index)
                if unit["source_ref"] != {"start_unit_id": unit_id, "end_unit_id": unit_id}:
                    self.problem(file, f"{where}.source_ref does not cite the unit itself")
                fixed = None if anchors is None else anchors.positions.get(unit_id)
                if fixed is not None:
                    if fixed <= last_fixed or (offset is not None and fixed - u_index != offset):
                        self.problem(
                            file,
                            f"{where}: unit {quoted(unit_id)} is out of order (the chunk map "
                            f"puts it at source position {fixed})",
                        )
                    offset = fixed - u_index if offset is None else offset
                    last_fixed = max(last_fixed, fixed)
            for end, unit_index in (("start_unit_id", 0), ("end_unit_id", -1)):
                if context[end] != units[unit_index]["unit_id"]:
                    self.problem(
                        file,
                        f"{path}.{end} {quoted(context[end])} is not the context's "
                        f"{'first' if unit_index == 0 else 'last'} unit: units are out of "
                        "order or missing",
                    )
            spans = self.references(file, path, context, index_of, allowlist, lanes, cited)
            at_start = at_end = anchors is None  # unknown: the document bounds allow slack
            if offset is not None and anchors is not None:
                at_start, at_end = offset == 0, offset + len(units) - 1 == anchors.last_position
                if previous_end is not None and offset <= previous_end + 1:
                    self.problem(file, f"{path} overlaps or touches the previous context")
                previous_end = offset + len(units) - 1
            if spans is not None and not _is_window_union(
                spans, len(units), window, at_start=at_start, at_end=at_end
            ):
                self.problem(
                    file,
                    f"{path} is not the union of its references expanded by window_units {window}",
                )
        valid_lanes = {
            lane_id: documents[file] for lane_id, file in lanes.items() if file in documents
        }
        self.lane_coverage(allowlist, valid_lanes, cited)

    def references(
        self,
        file: str,
        path: str,
        context: dict[str, Any],
        index_of: dict[str, int],
        allowlist: list[str],
        lanes: dict[str, str],
        cited: dict[tuple[str, str, str], str],
    ) -> list[tuple[int, int]] | None:
        """Check a context's references; their spans (positions in the context), or
        ``None`` when one does not resolve in it."""
        spans: list[tuple[int, int]] = []
        resolved = True
        for r_index, reference in enumerate(context["references"]):
            where = f"{path}.references[{r_index}]"
            start = reference["source_ref"]["start_unit_id"]
            end = reference["source_ref"]["end_unit_id"]
            lane_ids = reference["lane_ids"]
            if lane_ids != sorted(lane_ids):
                self.problem(file, f"{where}.lane_ids is not sorted")
            for lane_id in lane_ids:
                if lane_id not in allowlist:
                    self.problem(file, f"{where}: lane {lane_id} is not in $.lanes")
                elif lane_id not in lanes:
                    self.problem(file, f"{where}: lane {lane_id} has no payload in the bundle")
                cited.setdefault((start, end, lane_id), where)
            outside = [unit_id for unit_id in (start, end) if unit_id not in index_of]
            if outside:
                self.problem(
                    file, f"{where}: unit {quoted(outside[0])} is outside the context's bounds"
                )
                resolved = False
                continue
            span = (index_of[start], index_of[end])
            if span[0] > span[1]:
                self.problem(file, f"{where}: reversed, {quoted(start)} comes after {quoted(end)}")
                resolved = False
            elif spans and span <= spans[-1]:
                self.problem(file, f"{where}: references are out of order or repeated")
            spans.append(span)
        return spans if resolved else None

    def lane_coverage(
        self, allowlist: list[str], lanes: dict[str, Any], cited: dict[tuple[str, str, str], str]
    ) -> None:
        covered: set[tuple[str, str, str]] = set()
        checked: set[str] = set()
        for lane_id in allowlist:
            if lane_id not in lanes:
                continue  # excluded from the run, or completed without an output
            file = lane_file(lane_id)
            document = lanes[lane_id]
            name = document["artifact_kind"]
            kind = self.registry.get(name, where=file) if name in self.registry else None
            if kind is None or kind.evidence is None:
                self.problem(file, "allowlisted, but its artifact kind cannot expose evidence")
                continue
            try:
                output = parse_lane_output(document, lane_id, kind, file)
            except LaneOutputError as error:
                self.problem(file, error.one_line().removeprefix(f"{file}: "))
                continue
            checked.add(lane_id)
            for r_index, record in enumerate(output.records):
                for ref_index, reference in enumerate(kind.evidence(record)):
                    key = (reference.start_unit_id, reference.end_unit_id, lane_id)
                    covered.add(key)
                    if key not in cited:
                        self.problem(
                            file,
                            f"$.records[{r_index}] reference {ref_index} is not in "
                            f"{evidence_context.FILE_NAME} for lane {lane_id}",
                        )
        for key, where in cited.items():
            if key[2] in checked and key not in covered:
                self.problem(
                    evidence_context.FILE_NAME,
                    f"{where}: lane {key[2]} does not cite this reference in {lane_file(key[2])}",
                )


def _is_window_union(
    spans: Iterable[tuple[int, int]], size: int, window: int, *, at_start: bool, at_end: bool
) -> bool:
    """Whether a context of ``size`` units is exactly the union of ``spans`` expanded by
    ``window`` (clipped where the context is at a document boundary)."""
    ordered = sorted(spans)
    if not ordered:
        return False
    first = ordered[0][0] - window
    if first > 0 or (first < 0 and not at_start):
        return False
    reach = first - 1
    for start, end in ordered:
        if start - window > reach + 1:
            return False
        reach = max(reach, end + window)
    return reach == size - 1 or (reach > size - 1 and at_end)


def validate(folder: Path, registry: ArtifactKindRegistry) -> BundleReport:
    """Check the bundle in ``folder``; ``registry`` knows the artifact kinds of its lanes."""
    if not folder.is_dir():
        raise ConfigurationError(f"bundle folder {folder.name} does not exist")
    return _Validation(folder, registry).run()

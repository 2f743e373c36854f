"""``streamer eval``: a bundle's records against a reference, per lane.

    result = api.evaluate("out/C2E010", "labelled/C2E010.json")
    print(result.table().text())          # or result.to_json()
    api.reference_from("out/C2E010", "C2E010.reference.json")

The bundle's unit positions come from its source document: ``source``, else the one
``streamer run`` keeps in its work folder (``BUNDLE.work/source.jsonl``); its semantic
digest must be the bundle's, and the reference's. ``glossary``: its names and alias
sections canonicalize both sides as normalization does. ``tolerance``: how many units a
published record's evidence may lie from the expected record's (``docs/evaluation.md``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from streamer.api.config import default_registry
from streamer.api.output_destinations import check_output_destination, publish_to
from streamer.api.sources import source_batches
from streamer.evaluation.identity import Canon
from streamer.evaluation.lanes import PublishedLane, check_units, score_lanes
from streamer.evaluation.reference import Reference, cited, read_reference, ref_ids
from streamer.evaluation.reference_writer import LaneRecords, reference_bytes
from streamer.evaluation.scores import LaneScore, Row, Table
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.lane_outputs import DocumentSource, read_lane_output
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.regular_files import MIB, read_regular_file
from streamer.framework.source.accepted import AcceptedSource
from streamer.normalization.glossary import Glossary, load_glossary, party_of
from streamer.output.bundle_documents import INDEX_FILE

DEFAULT_TOLERANCE = 3  # units: a declaration and the narration that confirms it
INDEX_MAX_BYTES = 16 * MIB  # as streamer validate bounds it
WORK_SOURCE = ("{bundle}.work", "source.jsonl")  # streamer run's work folder and its copy
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Bundle:
    source: DocumentSource
    lanes: list[PublishedLane]

    def unit_ids(self) -> set[str]:
        return {
            unit
            for lane in self.lanes
            for record in lane.records
            for ref in cited(lane.kind, record)
            for unit in ref_ids(ref)
        }


@dataclass(frozen=True)
class EvaluationResult:
    """The score of each lane of the reference, in its order."""

    document_id: str
    tolerance: int
    lanes: list[LaneScore]

    def rows(self) -> list[Row]:
        return [Row(lane.lane_id, lane.counts) for lane in self.lanes]

    def table(self) -> Table:
        return Table(self.rows())

    def to_json(self, records: bool = True) -> dict[str, Any]:
        return {
            "document_id": self.document_id,
            "tolerance": self.tolerance,
            "lanes": [lane.to_json(records) for lane in self.lanes],
        }


def read_bundle(folder: Path, registry: ArtifactKindRegistry) -> Bundle:
    """The source and the lanes of the bundle in ``folder`` (each lane checked by its kind)."""
    where = f"bundle {shown_path(folder)}"
    if not folder.is_dir():
        raise ConfigurationError(f"{where} is not a folder", hint="give a bundle folder")
    try:
        raw = read_regular_file(folder / INDEX_FILE, INDEX_MAX_BYTES, where, InputError)
        index = orjson.loads(raw)
        source = index["source"]
        found = DocumentSource(source["document_id"], source["semantic_digest"])
        descriptors = [
            (lane["lane_id"], lane["artifact_kind"], lane["file"]) for lane in index["lanes"]
        ]
    except FileNotFoundError:
        raise ConfigurationError(
            f"{where}: no {INDEX_FILE} in it",
            hint="give a folder that streamer bundle or streamer run published",
        ) from None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        raise InputError(
            f"{where}: {INDEX_FILE} is not a bundle index",
            hint=f"streamer validate {shown_path(folder)}",
        ) from None
    lanes = []
    for lane_id, kind_name, file in descriptors:
        kind = registry.get(kind_name, where=f"{where}: lane {lane_id}")
        output = read_lane_output(folder / file, lane_id, kind)
        lanes.append(PublishedLane(lane_id, kind, output.records))
    return Bundle(found, lanes)


def unit_positions(
    source: PathLike | AcceptedSource, wanted: Iterable[str]
) -> tuple[dict[str, int], str]:
    """The document positions of the ``wanted`` unit IDs found in ``source``, and its
    semantic digest."""
    wanted = frozenset(wanted)
    positions: dict[str, int] = {}
    with source_batches(source) as (batches, identity):
        base = 0
        for batch in batches:
            ids = batch.ids
            if not wanted.isdisjoint(ids):
                positions.update((unit, base + at) for at, unit in enumerate(ids) if unit in wanted)
            base += len(ids)
        digest = identity().semantic_digest
    return positions, digest


def work_source(bundle: Path) -> Path:
    folder, name = WORK_SOURCE
    return Path(folder.format(bundle=os.fspath(bundle).rstrip("/"))) / name


def read_glossary(glossary: PathLike | None, registry: ArtifactKindRegistry) -> Glossary:
    """The glossary at ``glossary`` (an empty one without a path)."""
    if glossary is None:
        return Glossary()
    specs = [kind.normalization for kind in registry if kind.normalization is not None]
    sections = {spec.glossary_section for spec in specs if spec.glossary_section is not None}
    aliases = {section for spec in specs for section in spec.glossary_aliases.values()}
    return load_glossary(Path(glossary), sections, aliases)


def canon(terms: Glossary, session: str) -> Canon:
    """The glossary's names, alias sections and party in ``session`` (a document ID)."""
    return Canon(terms.names, terms.aliases, party_of(terms, session))


def evaluate(
    bundle: PathLike,
    reference: PathLike,
    *,
    source: PathLike | None = None,
    glossary: PathLike | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
    registry: ArtifactKindRegistry | None = None,
) -> EvaluationResult:
    """Score the bundle in ``bundle`` against the reference file ``reference``."""
    registry = registry or default_registry()
    check_tolerance(tolerance)
    folder = Path(bundle)
    expected = read_reference(Path(reference), registry)
    terms = read_glossary(glossary, registry)
    published = read_bundle(folder, registry)
    names = canon(terms, published.source.document_id)
    if source is None:
        source = work_source(folder)
        if not source.is_file():
            raise ConfigurationError(
                f"bundle {shown_path(folder)}: no source document to place its units",
                hint="give --source, the source document the bundle was made from "
                "(streamer run keeps it in BUNDLE.work/source.jsonl)",
            )
    return score(published, expected, source, reference, names, tolerance)


def score(
    published: Bundle,
    expected: Reference,
    source: PathLike,
    reference: PathLike,
    names: Canon,
    tolerance: int,
) -> EvaluationResult:
    """Score a read bundle against a read reference, placing units by ``source``."""
    where = f"reference {shown_path(reference)}"
    digest = published.source.semantic_digest
    if expected.source.semantic_digest != digest:
        raise InputError(
            f"{where} is not a reference of the bundle's source document (another semantic digest)",
            hint="a reference holds for one source document, imported with the same options",
        )
    wanted = published.unit_ids() | expected.unit_ids()
    positions, found = unit_positions(source, wanted)
    if found != digest:
        raise InputError(
            f"source {shown_path(source)} is not the bundle's source document "
            "(another semantic digest)"
        )
    check_units(expected, positions, where)
    lanes = score_lanes(expected, published.lanes, positions, names, tolerance, where)
    return EvaluationResult(published.source.document_id, tolerance, lanes)


def check_tolerance(tolerance: int) -> None:
    if type(tolerance) is not int or tolerance < 0:
        raise ConfigurationError("--tolerance must be a whole number of units, 0 or more")


def reference_from(
    bundle: PathLike, output: PathLike, *, registry: ArtifactKindRegistry | None = None
) -> dict[str, Any]:
    """Write the records of the bundle in ``bundle`` as a reference to ``output`` (``-``:
    standard output); return the receipt."""
    registry = registry or default_registry()
    destination = check_output_destination(output)
    published = read_bundle(Path(bundle), registry)
    lanes: Sequence[LaneRecords] = [
        LaneRecords(lane.lane_id, lane.kind, lane.records) for lane in published.lanes
    ]
    data = reference_bytes(published.source, lanes)

    def write(stream: IO[bytes]) -> None:
        stream.write(data)

    publish_to(destination, write)
    return {
        "status": "ok",
        "document_id": published.source.document_id,
        "lanes": len(lanes),
        "records": sum(len(lane.records) for lane in lanes),
    }

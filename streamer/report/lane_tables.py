"""The lanes of a bundle as tables: each lane's records, their columns and references.

Columns are the records' JSON members in the order they first appear, each with the
human label its kind declares (``ArtifactKind.label``); the kind's ID member is the lane's
*ID column* (the page hides it until asked). A record's
references are what its artifact kind's evidence projection returns; a kind the registry
does not know, or one without a projection, gives records without references. When one
member of every record holds exactly the projected references, that member is the
lane's *reference column* (the page shows it as links rather than as JSON).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from streamer.framework.source.reference import SourceReference


@dataclass(frozen=True)
class LaneTable:
    """One lane of the bundle, ready for the page."""

    lane_id: str
    artifact_kind: str
    question: str | None
    columns: tuple[str, ...]
    reference_column: str | None
    records: list[dict[str, Any]]
    references: list[list[tuple[str, str]]]
    labels: dict[str, str]
    id_column: str | None
    at: list[int | None] | None = None  # each record's place in the session, when known

    def placed(self, positions: Mapping[str, int]) -> LaneTable:
        """This table with ``at``: each record's place in the session, the document position
        of the first unit it cites (``positions``: unit ID -> position; ``None`` when it
        cites none found there)."""
        at = [
            min((positions[start] for start, _ in cited if start in positions), default=None)
            for cited in self.references
        ]
        return dataclasses.replace(self, at=at)

    def to_json(self) -> dict[str, Any]:
        return {
            "lane_id": self.lane_id,
            "artifact_kind": self.artifact_kind,
            "question": self.question,
            "columns": list(self.columns),
            "labels": self.labels,
            "id_column": self.id_column,
            "reference_column": self.reference_column,
            "records": self.records,
            "references": [[list(pair) for pair in cited] for cited in self.references],
            "at": self.at,
        }


def _columns(records: list[dict[str, Any]]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(record))
    return tuple(seen)


def _reference_column(
    columns: tuple[str, ...],
    records: list[dict[str, Any]],
    projected: list[list[SourceReference]],
) -> str | None:
    if not records:
        return None
    for column in columns:
        if all(
            column in record
            and (
                record[column] == [reference.to_json() for reference in cited]
                or (len(cited) == 1 and record[column] == cited[0].to_json())
            )
            for record, cited in zip(records, projected, strict=True)
        ):
            return column
    return None


def _id_column(kind: ArtifactKind[Any] | None, columns: tuple[str, ...]) -> str | None:
    if kind is None or kind.id_member is None or kind.id_member not in columns:
        return None
    return kind.id_member


def lane_table(
    folder: Path, descriptor: dict[str, Any], registry: ArtifactKindRegistry
) -> LaneTable:
    """The table of the lane ``descriptor`` (an entry of ``index.json``'s ``lanes``) of a
    validated bundle."""
    document = orjson.loads((folder / descriptor["file"]).read_bytes())
    records: list[dict[str, Any]] = document["records"]
    name = descriptor["artifact_kind"]
    kind = registry.get(name, where=descriptor["file"]) if name in registry else None
    projected: list[list[SourceReference]] = [[] for _ in records]
    if kind is not None and kind.evidence is not None:
        projection = kind.evidence
        projected = [
            list(projection(kind.parse_record(record, f"$.records[{index}]")))
            for index, record in enumerate(records)
        ]
    columns = _columns(records)
    return LaneTable(
        labels={
            column: (column.replace("_", " ").capitalize() if kind is None else kind.label(column))
            for column in columns
        },
        id_column=_id_column(kind, columns),
        lane_id=descriptor["lane_id"],
        artifact_kind=name,
        question=None if kind is None else kind.question,
        columns=columns,
        reference_column=_reference_column(columns, records, projected),
        records=records,
        references=[
            [(reference.start_unit_id, reference.end_unit_id) for reference in cited]
            for cited in projected
        ],
    )

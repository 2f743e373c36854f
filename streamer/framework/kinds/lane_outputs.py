"""Normalized lane outputs: reading ``<lane_id>.json`` and validating it against its kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec
import orjson

from streamer.framework.errors.types import LaneOutputError
from streamer.framework.json.byte_scan import check_unique
from streamer.framework.json.members import check_members
from streamer.framework.kinds.registry import ArtifactKind
from streamer.framework.regular_files import MIB, read_regular_file

R = TypeVar("R", bound=msgspec.Struct)

# A lane output is read whole: a regular file of at most this many bytes.
LANE_OUTPUT_MAX_BYTES = 256 * MIB
_MEMBERS = ("lane_id", "artifact_kind", "schema", "source", "records")
_SOURCE_MEMBERS = frozenset({"document_id", "semantic_digest"})


@dataclass(frozen=True)
class DocumentSource:
    """The source document a lane output says it was extracted from."""

    document_id: str
    semantic_digest: str


def is_document_source(value: Any) -> bool:
    """Whether ``value`` (parsed JSON) is the ``source`` member of a lane output or of a
    candidates file's header: an object of exactly ``document_id`` and
    ``semantic_digest``, each a non-empty string."""
    return (
        type(value) is dict
        and value.keys() == _SOURCE_MEMBERS
        and all(type(member) is str and member for member in value.values())
    )


@dataclass(frozen=True)
class LaneOutput(Generic[R]):
    """An accepted normalized lane output: typed records of one artifact kind.

    ``support``: the support check's policy when it was normalized (``strict``, or ``off``
    as its normalization folder recorded); never part of the payload, it is published in
    the lane's descriptor of the bundle index when ``off``."""

    lane_id: str
    kind: ArtifactKind[R]
    source: DocumentSource
    records: tuple[R, ...]
    support: str = "strict"

    def to_json(self) -> dict[str, Any]:
        """The lane payload as published: members in contract order, records canonical."""
        return {
            "lane_id": self.lane_id,
            "artifact_kind": self.kind.name,
            "schema": self.kind.schema.to_json(),
            "source": {
                "document_id": self.source.document_id,
                "semantic_digest": self.source.semantic_digest,
            },
            "records": [self.kind.record_to_json(record) for record in self.records],
        }


def lane_output_path(lanes_dir: Path, lane_id: str) -> Path:
    return lanes_dir / f"{lane_id}.json"


def read_lane_output(path: Path, lane_id: str, kind: ArtifactKind[R]) -> LaneOutput[R]:
    """Read and validate one lane output file. Errors name the lane and a JSON path."""
    where = f"lane {lane_id} ({path.name})"
    try:
        raw = read_regular_file(path, LANE_OUTPUT_MAX_BYTES, where, LaneOutputError)
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise LaneOutputError(f"{where}: not valid JSON") from None
    except FileNotFoundError:
        raise LaneOutputError(f"{where}: does not exist") from None
    check_unique(raw, data, where, LaneOutputError)  # records, references, source: RFC 7493
    return parse_lane_output(data, lane_id, kind, where)


def parse_lane_output(data: Any, lane_id: str, kind: ArtifactKind[R], where: str) -> LaneOutput[R]:
    if type(data) is not dict:
        raise LaneOutputError(f"{where}: $ must be an object")
    check_members(data, _MEMBERS, _MEMBERS, "$", _error(where))
    if data["lane_id"] != lane_id:
        raise LaneOutputError(f"{where}: $.lane_id does not name this lane")
    if data["artifact_kind"] != kind.name:
        raise LaneOutputError(f"{where}: $.artifact_kind is not the configured kind {kind.name}")
    if data["schema"] != kind.schema.to_json():
        raise LaneOutputError(
            f"{where}: $.schema is not {kind.schema.id} {kind.schema.name} {kind.schema.version}"
        )
    source = data["source"]
    if not is_document_source(source):
        raise LaneOutputError(
            f"{where}: $.source must be an object with document_id and semantic_digest"
        )
    records = data["records"]
    if type(records) is not list:
        raise LaneOutputError(f"{where}: $.records must be a list")
    parsed = tuple(
        _parse(kind, record, f"$.records[{index}]", where) for index, record in enumerate(records)
    )
    if kind.id_member is not None:
        seen: dict[str | None, int] = {}
        for index, record in enumerate(parsed):
            record_id = kind.record_id(record)
            if record_id in seen:
                raise LaneOutputError(
                    f"{where}: $.records[{index}] repeats the record ID of "
                    f"$.records[{seen[record_id]}]"
                )
            seen[record_id] = index
    return LaneOutput(
        lane_id, kind, DocumentSource(source["document_id"], source["semantic_digest"]), parsed
    )


def _parse(kind: ArtifactKind[R], record: Any, path: str, where: str) -> R:
    try:
        return kind.parse_record(record, path)
    except LaneOutputError as error:
        raise LaneOutputError(f"{where}: {error.message}") from None


def _error(where: str) -> Callable[[str, str], LaneOutputError]:
    """The ``check_members`` error of a lane output's envelope, after ``where``."""

    def error(path: str, rule: str) -> LaneOutputError:
        message = f"{path}{rule}" if rule.startswith(":") else f"{path} {rule}"
        return LaneOutputError(f"{where}: {message}")

    return error

"""The reference document: what a bundle's records should be (``notarius.evaluation.reference``).

```json
{"artifact_kind": "evaluation/reference",
 "schema": {"id": "notarius.evaluation.reference", "name": "notarius_evaluation_reference_v1",
            "version": "v1"},
 "source": {"document_id": "C2E010", "semantic_digest": "sha256:..."},
 "scope": [{"start_unit_id": "t00530", "end_unit_id": "t00860"}],
 "rules": "How the episode was labelled.",
 "lanes": [{"lane_id": "spells", "artifact_kind": "dnd/spell-casts", "rules": "What counts.",
            "records": [{"spell": "Fire Bolt", "caster": "Caleb Widogast",
                         "source_refs": [{"start_unit_id": "t00786", "end_unit_id": "t00786"}]},
                        {"spell": "Shield", "caster": null, "optional": true,
                         "source_refs": [...]}]}]}
```

A lane's records are the records of its artifact kind as the kind declares them, less the
application-owned ID member (the model-facing record), each checked by the kind's own
parser; ``"optional": true`` marks a record counted neither missing nor wrong. ``scope``
(optional): the ranges that were labelled (absent: the whole document); published records
citing no unit in them are not scored. ``rules`` (optional, also per lane): the labelling
rules, as text. One lane per artifact kind. Errors name the reference file and a JSON path,
never a value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, InputError, LaneOutputError
from streamer.framework.json.byte_scan import check_unique
from streamer.framework.json.members import check_members
from streamer.framework.kinds.lane_outputs import DocumentSource
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry, SchemaIdentity
from streamer.framework.regular_files import MIB, read_regular_file
from streamer.framework.source.reference import SourceReference

ARTIFACT_KIND = "evaluation/reference"
SCHEMA = SchemaIdentity("notarius.evaluation.reference", "notarius_evaluation_reference_v1", "v1")
OPTIONAL = "optional"  # the member marking an optional expected record
REFERENCE_MAX_BYTES = 256 * MIB  # read whole, as a lane output is
_MEMBERS = ("artifact_kind", "schema", "source", "scope", "rules", "lanes")
_REQUIRED = ("artifact_kind", "schema", "source", "lanes")
_LANE_MEMBERS = ("lane_id", "artifact_kind", "rules", "records")
_LANE_REQUIRED = ("lane_id", "artifact_kind", "records")


@dataclass(frozen=True)
class Expected:
    """One expected record: the kind's model-facing record, and whether it is optional."""

    record: Any
    optional: bool = False


@dataclass(frozen=True)
class ReferenceLane:
    lane_id: str
    kind: ArtifactKind[Any]
    records: tuple[Expected, ...]
    rules: str | None = None


@dataclass(frozen=True)
class Reference:
    source: DocumentSource
    lanes: tuple[ReferenceLane, ...]
    scope: tuple[SourceReference, ...] = ()
    rules: str | None = None

    def unit_ids(self) -> set[str]:
        """Every unit ID the reference cites (its scope's and its records')."""
        ids = {unit for ref in self.scope for unit in (ref.start_unit_id, ref.end_unit_id)}
        for lane in self.lanes:
            for expected in lane.records:
                ids.update(
                    unit for ref in cited(lane.kind, expected.record) for unit in ref_ids(ref)
                )
        return ids


def ref_ids(ref: SourceReference) -> tuple[str, str]:
    return ref.start_unit_id, ref.end_unit_id


def cited(kind: ArtifactKind[Any], record: Any) -> tuple[SourceReference, ...]:
    """The references a record (or model-facing record) cites: none for a kind without
    evidence."""
    return () if kind.evidence is None else tuple(kind.evidence(record))


class ReferenceError(InputError):
    """The reference document is malformed or breaks its schema or a kind's record."""


def read_reference(path: Path, registry: ArtifactKindRegistry) -> Reference:
    """Read and check the reference at ``path`` (a missing file is a usage error)."""
    where = f"reference {shown_path(path)}"
    try:
        raw = read_regular_file(path, REFERENCE_MAX_BYTES, where, ConfigurationError)
    except FileNotFoundError:
        raise ConfigurationError(f"{where} does not exist") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ReferenceError(f"{where}: not valid JSON") from None
    check_unique(raw, data, where, ReferenceError)
    return parse_reference(data, registry, where)


class _Checker:
    """Raises the reference's errors: ``where`` (the file), a JSON path and the rule."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __call__(self, path: str, rule: str) -> ReferenceError:
        sep = "" if rule.startswith(":") else " "
        return ReferenceError(f"{self.where}: {path}{sep}{rule}")


def parse_reference(data: Any, registry: ArtifactKindRegistry, where: str) -> Reference:
    fail = _Checker(where)
    if type(data) is not dict:
        raise fail("$", "must be an object")
    check_members(data, _MEMBERS, _REQUIRED, "$", fail)
    if data["artifact_kind"] != ARTIFACT_KIND:
        raise fail("$.artifact_kind", f"must be {ARTIFACT_KIND}")
    if data["schema"] != SCHEMA.to_json():
        raise fail("$.schema", f"must be {SCHEMA.id} {SCHEMA.name} {SCHEMA.version}")
    source = data["source"]
    if (
        type(source) is not dict
        or sorted(source) != ["document_id", "semantic_digest"]
        or not all(type(value) is str and value for value in source.values())
    ):
        raise fail("$.source", "must be an object with document_id and semantic_digest")
    scope = tuple(_refs(data.get("scope", []), "$.scope", fail))
    lanes = data["lanes"]
    if type(lanes) is not list:
        raise fail("$.lanes", "must be a list")
    parsed = tuple(_lane(lane, f"$.lanes[{i}]", registry, fail) for i, lane in enumerate(lanes))
    seen: dict[str, int] = {}
    for index, lane in enumerate(parsed):
        first = seen.setdefault(lane.kind.name, index)
        if first != index:
            raise fail(f"$.lanes[{index}]", f": repeats the artifact kind of $.lanes[{first}]")
    return Reference(
        DocumentSource(source["document_id"], source["semantic_digest"]),
        parsed,
        scope,
        _rules(data, "$", fail),
    )


def _rules(data: dict[str, Any], path: str, fail: _Checker) -> str | None:
    rules = data.get("rules")
    if rules is not None and type(rules) is not str:
        raise fail(f"{path}.rules", "must be a string")
    return rules


def _refs(value: Any, path: str, fail: _Checker) -> Iterable[SourceReference]:
    if type(value) is not list:
        raise fail(path, "must be a list of source references")
    members = ("start_unit_id", "end_unit_id")
    for index, ref in enumerate(value):
        if type(ref) is not dict:
            raise fail(f"{path}[{index}]", "must be a source reference")
        check_members(ref, members, members, f"{path}[{index}]", fail)
        if not all(type(unit) is str and unit for unit in ref.values()):
            raise fail(f"{path}[{index}]", "must name its units by non-empty unit IDs")
        yield SourceReference(ref["start_unit_id"], ref["end_unit_id"])


def _lane(data: Any, path: str, registry: ArtifactKindRegistry, fail: _Checker) -> ReferenceLane:
    if type(data) is not dict:
        raise fail(path, "must be an object")
    check_members(data, _LANE_MEMBERS, _LANE_REQUIRED, path, fail)
    lane_id, kind_name = data["lane_id"], data["artifact_kind"]
    if type(lane_id) is not str or not lane_id:
        raise fail(f"{path}.lane_id", "must be a non-empty string")
    if type(kind_name) is not str or kind_name not in registry:
        shown = quoted(kind_name) if type(kind_name) is str else "(not a string)"
        raise fail(f"{path}.artifact_kind", f": unknown artifact kind {shown}")
    kind = registry.get(kind_name, where=path)
    if OPTIONAL in kind.records.members:
        raise ConfigurationError(
            f"artifact kind {kind.name} declares a member named {OPTIONAL}, "
            "which a reference reserves: its records cannot be evaluated"
        )
    records = data["records"]
    if type(records) is not list:
        raise fail(f"{path}.records", "must be a list")
    expected = tuple(
        _expected(kind, record, f"{path}.records[{index}]", fail)
        for index, record in enumerate(records)
    )
    return ReferenceLane(lane_id, kind, expected, _rules(data, path, fail))


def _expected(kind: ArtifactKind[Any], data: Any, path: str, fail: _Checker) -> Expected:
    if type(data) is not dict:
        raise fail(path, "must be an object")
    optional = data.get(OPTIONAL, False)
    if type(optional) is not bool:
        raise fail(f"{path}.{OPTIONAL}", "must be true or false")
    members = {name: value for name, value in data.items() if name != OPTIONAL}
    try:
        record = kind.parse_model_record(members, path)
    except LaneOutputError as error:
        raise ReferenceError(f"{fail.where}: {error.message}") from None
    return Expected(record, optional)

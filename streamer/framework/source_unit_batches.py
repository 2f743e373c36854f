"""Source units as typed structs, decoded and validated a batch at a time.

A batch of units is decoded (JSON Lines) or converted (the JSON form, from ijson's
objects) by msgspec against ``SourceUnit``, which states the contract's types,
non-empty strings, integer ranges and the absence of unknown members; what a type
cannot say (a self-reference citing the unit itself, ``start_ms <= end_ms``, empty
metadata) is checked on the batch's columns. Anything that fails is validated again,
unit by unit, by ``validate_unit``, which raises the located, content-safe error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NamedTuple

import msgspec
from msgspec import UNSET, UnsetType

from streamer.framework.canonical_json import MAX_SAFE_INTEGER
from streamer.framework.errors import SourceError
from streamer.framework.source_units import validate_unit

Milliseconds = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INTEGER)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Where = Callable[[int], str]


class SelfReference(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    start_unit_id: str
    end_unit_id: str


class UnitMetadata(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Accepted metadata, in published member order."""

    speaker: str | UnsetType = UNSET
    start_ms: Milliseconds | UnsetType = UNSET
    end_ms: Milliseconds | UnsetType = UNSET


class SourceUnit(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """One accepted source unit, in published member order.

    ``source_ref`` is unset on every unit a batch yields (the digest does not cover it);
    it is set, to the unit itself, only when the unit is published.
    """

    unit_id: NonEmpty
    kind: NonEmpty
    text: str
    source_ref: SelfReference | UnsetType = UNSET
    metadata: UnitMetadata | UnsetType = UNSET


_decoder = msgspec.json.Decoder(SourceUnit)
_canonical = msgspec.json.Encoder(order="sorted")
_published = msgspec.json.Encoder()


def published_units(units: list[SourceUnit]) -> bytes:
    """The published form of ``units``, comma-separated: each with its self-reference,
    members in contract order (``unit_id, kind, text, source_ref, metadata``)."""
    for unit in units:
        unit.source_ref = SelfReference(unit.unit_id, unit.unit_id)
    return _published.encode(units)[1:-1]


def unit_ids(units: list[SourceUnit]) -> list[str]:
    return [unit.unit_id for unit in units]


def decode_lines(block: bytes, line_count: int) -> list[SourceUnit] | None:
    """Decode a block of JSON lines, one unit per line; ``None`` when any line breaks the
    contract or is blank (it is then parsed again, line by line, to locate the problem)."""
    try:
        units = _decoder.decode_lines(block)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    return units if len(units) == line_count else None  # msgspec skips blank lines


def convert_units(objects: list[Any], where: Where) -> list[SourceUnit]:
    """Validate parsed JSON objects into units, raising the located error of the first
    one that breaks the contract."""
    try:
        return msgspec.convert(objects, list[SourceUnit])
    except msgspec.ValidationError:
        validated = [validate_unit(obj, where(index)) for index, obj in enumerate(objects)]
        try:
            return msgspec.convert(validated, list[SourceUnit])
        except msgspec.ValidationError:  # pragma: no cover - the two validations disagree
            raise SourceError(f"{where(0)}: a unit of this batch breaks the contract") from None


class Batch(NamedTuple):
    """Validated units in document order, with their unit IDs (read in the same loop
    that checks them: each unit is touched once while it is still in cache)."""

    units: list[SourceUnit]
    ids: list[str]


def canonical_units(units: list[SourceUnit], where: Where) -> tuple[bytes, list[str]]:
    """Finish validating ``units`` (in place) and return the canonical JSON of their list,
    which is what the semantic digest covers.

    What a type cannot state is checked here: a self-reference must cite its unit (and is
    then dropped: the digest does not cover it), ``start_ms <= end_ms``, and empty
    metadata is no metadata. The common batch passes one tight loop; any other is
    walked unit by unit.
    """
    ids = _regular_ids(units)
    if ids is None:
        _normalize_one_by_one(units, where)
        ids = unit_ids(units)
    return _canonical.encode(units), ids


def _regular_ids(units: list[SourceUnit]) -> list[str] | None:
    """The unit IDs, when no unit has a self-reference and every unit has both times, in
    order; else ``None``. (Attribute access on structs is faster in a loop than through
    ``operator.attrgetter``.)"""
    ids: list[str] = []
    append = ids.append
    try:
        for unit in units:
            append(unit.unit_id)
            item = unit.metadata
            if unit.source_ref is not UNSET or item.start_ms > item.end_ms:  # type: ignore[union-attr, operator]
                return None
    except (AttributeError, TypeError):  # a unit without metadata, or without both times
        return None
    return ids


def _normalize_one_by_one(units: list[SourceUnit], where: Where) -> None:
    for index, unit in enumerate(units):
        reference = unit.source_ref
        if reference is not UNSET:
            if reference.start_unit_id != unit.unit_id or reference.end_unit_id != unit.unit_id:
                validate_unit(msgspec.to_builtins(unit), where(index))
            unit.source_ref = UNSET
    _check_metadata_one_by_one(units, where)


def _check_metadata_one_by_one(units: list[SourceUnit], where: Where) -> None:
    for index, unit in enumerate(units):
        item = unit.metadata
        if item is UNSET:
            continue
        if item.speaker is UNSET and item.start_ms is UNSET and item.end_ms is UNSET:
            unit.metadata = UNSET  # empty metadata is the same as none
        elif (
            item.start_ms is not UNSET and item.end_ms is not UNSET and item.start_ms > item.end_ms
        ):
            raise SourceError(f"{where(index)}.metadata: start_ms is after end_ms")

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
from streamer.framework.source.unit_rules import validate_unit

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
    which is what the semantic digest covers, with their unit IDs.

    What a type cannot state is checked here: a self-reference must cite its unit (and is
    then dropped: the digest does not cover it), ``start_ms <= end_ms``, and empty
    metadata is no metadata. The common batch passes one tight loop; any other is
    walked again, unit by unit, with every case spelled out.
    """
    ids = _regular_ids(units)
    if ids is None:
        ids = _checked_ids(units, where)
    return _canonical.encode(units), ids


def _regular_ids(units: list[SourceUnit]) -> list[str] | None:
    """The unit IDs, when every self-reference cites its unit (it is dropped) and every
    unit has both times, in order; else ``None``. (Attribute access on structs is faster
    in a loop than through ``operator.attrgetter``.)"""
    ids: list[str] = []
    append = ids.append
    try:
        for unit in units:
            unit_id = unit.unit_id
            append(unit_id)
            reference = unit.source_ref
            if reference is not UNSET:
                if reference.start_unit_id != unit_id or reference.end_unit_id != unit_id:
                    return None
                unit.source_ref = UNSET
            item = unit.metadata
            if item.start_ms > item.end_ms:  # type: ignore[union-attr, operator]
                return None
    except (AttributeError, TypeError):  # a unit without metadata, or without both times
        return None
    return ids


def _checked_ids(units: list[SourceUnit], where: Where) -> list[str]:
    ids: list[str] = []
    for index, unit in enumerate(units):
        unit_id = unit.unit_id
        ids.append(unit_id)
        reference = unit.source_ref
        if reference is not UNSET:
            if reference.start_unit_id != unit_id or reference.end_unit_id != unit_id:
                validate_unit(msgspec.to_builtins(unit), where(index))
            unit.source_ref = UNSET
        item = unit.metadata
        if item is UNSET:
            continue
        start, end = item.start_ms, item.end_ms
        if start is not UNSET and end is not UNSET:
            if start > end:
                raise SourceError(f"{where(index)}.metadata: start_ms is after end_ms")
        elif start is UNSET and end is UNSET and item.speaker is UNSET:
            unit.metadata = UNSET  # empty metadata is the same as none
    return ids

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
from operator import attrgetter, le
from typing import Annotated, Any

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


_decoder = msgspec.json.Decoder(list[SourceUnit])
_canonical = msgspec.json.Encoder(order="sorted")
_published = msgspec.json.Encoder()
_unit_id = attrgetter("unit_id")
_start = attrgetter("metadata.start_ms")
_end = attrgetter("metadata.end_ms")


def published_units(units: list[SourceUnit]) -> bytes:
    """The published form of ``units``, comma-separated: each with its self-reference,
    members in contract order (``unit_id, kind, text, source_ref, metadata``)."""
    for unit in units:
        unit.source_ref = SelfReference(unit.unit_id, unit.unit_id)
    return _published.encode(units)[1:-1]


def unit_ids(units: list[SourceUnit]) -> list[str]:
    return list(map(_unit_id, units))


def decode_units(array: bytes) -> list[SourceUnit] | None:
    """Decode a JSON array of units; ``None`` when anything in it breaks the contract."""
    try:
        return _decoder.decode(array)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


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


def canonical_units(units: list[SourceUnit], where: Where) -> bytes:
    """Finish validating ``units`` (in place) and return the canonical JSON of their list,
    which is what the semantic digest covers.

    The checks a type cannot state run on the batch's columns. Self-references and empty
    metadata show in the canonical bytes as tokens that cannot occur inside a string
    (``"source_ref":{`` and ``"metadata":{}``: a string's quotes are escaped), so the
    common batch, which has neither, is never walked unit by unit.
    """
    listed = _canonical.encode(units)
    if b'"source_ref":{' in listed or b'"metadata":{}' in listed:
        for index, unit in enumerate(units):
            reference = unit.source_ref
            if reference is not UNSET:
                if reference.start_unit_id != unit.unit_id or reference.end_unit_id != unit.unit_id:
                    validate_unit(msgspec.to_builtins(unit), where(index))
                unit.source_ref = UNSET
        _check_metadata_one_by_one(units, where)
        listed = _canonical.encode(units)
    # Where every unit has both times (counted as tokens, which strings cannot hold),
    # their order is checked on two columns; otherwise unit by unit, where it can matter.
    starts, ends = listed.count(b'"start_ms":'), listed.count(b'"end_ms":')
    if starts == ends == len(units):
        if not all(map(le, map(_start, units), map(_end, units))):
            _check_metadata_one_by_one(units, where)
    elif starts and ends:
        _check_metadata_one_by_one(units, where)
    return listed


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

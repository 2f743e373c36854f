"""Source units as typed structs, decoded and validated a batch at a time.

A batch of units is decoded by msgspec against ``SourceUnit`` (JSON Lines: a block of
lines; the JSON form: a run of array items), which states the contract's types,
non-empty strings, integer ranges and the absence of unknown members; what a type
cannot say (a self-reference citing the unit itself, ``start_ms <= end_ms``, empty
metadata) is checked in one loop over the batch, and so, by counting strings, is the
absence of repeated member names (``has_duplicate_members``). Anything that fails is
validated again, unit by unit, by ``validate_unit``, which raises the located,
content-safe error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgspec
from msgspec import UNSET

from streamer.framework.errors import SourceError
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.unit_rules import validate_unit

Where = Callable[[int], str]


_decoder = msgspec.json.Decoder(SourceUnit)
_list_decoder = msgspec.json.Decoder(list[SourceUnit])
_canonical = msgspec.json.Encoder(order="sorted")
_published = msgspec.json.Encoder()


def published_units(units: list[SourceUnit]) -> bytes:
    """The published form of ``units``, comma-separated: each with its self-reference,
    members in contract order (``unit_id, kind, text, source_ref, metadata``)."""
    for unit in units:
        unit.source_ref = SourceReference(unit.unit_id, unit.unit_id)
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


def decode_array(array: bytes) -> list[SourceUnit] | None:
    """Decode a JSON array of units; ``None`` when it breaks the contract (it is then
    parsed again, unit by unit, to locate the problem)."""
    try:
        return _list_decoder.decode(array)
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


class Batch(NamedTuple):
    """Validated units in document order, with their unit IDs (read in the same loop
    that checks them: each unit is touched once while it is still in cache)."""

    units: Sequence[SourceUnit]  # a list, or decoded on demand (``source.parallel``)
    ids: list[str]


class Dropped(NamedTuple):
    """What the canonical JSON of a batch leaves out of the units' JSON text: the checked
    self-references and empty metadata, in quote characters and in bytes (as compact
    JSON, escaped as msgspec escapes)."""

    quotes: int
    size: int


_REFERENCE_SIZE = len(b',"source_ref":{"start_unit_id":,"end_unit_id":}')
_EMPTY_METADATA_SIZE = len(b',"metadata":{}')


def canonical_units(units: list[SourceUnit], where: Where) -> tuple[bytes, list[str], Dropped]:
    """Finish validating ``units`` (in place) and return the canonical JSON of their list,
    which is what the semantic digest covers, their unit IDs, and what of their JSON text
    the canonical JSON drops (see ``has_duplicate_members``).

    What a type cannot state is checked here, in one loop: a self-reference must cite its
    unit (and is then dropped: the digest does not cover it), ``start_ms <= end_ms``, and
    empty metadata is no metadata.
    """
    ids: list[str] = []
    append = ids.append
    quotes = size = 0
    for index, unit in enumerate(units):
        unit_id = unit.unit_id
        append(unit_id)
        reference = unit.source_ref
        if reference is not UNSET:
            if reference.start_unit_id != unit_id or reference.end_unit_id != unit_id:
                validate_unit(msgspec.to_builtins(unit), where(index))
            unit.source_ref = UNSET
            # "source_ref":{"start_unit_id":ID,"end_unit_id":ID}: 10 quotes, and one for
            # each (escaped) quote of the ID, written twice
            quotes += 10 + 2 * unit_id.count('"')
            size += _REFERENCE_SIZE + 2 * len(_published.encode(unit_id))
        item = unit.metadata
        if item is UNSET:
            continue
        start = item.start_ms
        if start is UNSET:
            if item.end_ms is UNSET and item.speaker is UNSET:
                unit.metadata = UNSET  # empty metadata is the same as none
                quotes += 2
                size += _EMPTY_METADATA_SIZE
        elif (end := item.end_ms) is not UNSET and start > end:
            raise SourceError(f"{where(index)}.metadata: start_ms is after end_ms")
    return _canonical.encode(units), ids, Dropped(quotes, size)


def has_duplicate_members(raw: bytes, separators: int, listed: bytes, dropped: Dropped) -> bool:
    """Whether the JSON text ``raw`` of a list of accepted units, ``separators`` bytes
    between and around them, may repeat a member name, given ``canonical_units``' result
    for them (``True`` is then decided exactly, by a parse).

    The decoder keeps the last of repeated members and drops the others: each adds bytes,
    and at least the two quotes of its name, to ``raw`` that the canonical JSON does not
    have. No other writing of the units is shorter than the canonical JSON (compact,
    escaped only where JSON requires it), so ``raw`` of exactly the canonical size
    repeats nothing (the common case: compact JSON as orjson and msgspec write it; no
    pass over the bytes). Otherwise every quote character of ``raw`` is in the canonical
    JSON too (a quote in a string is ``\\"`` in both, unless ``raw`` writes
    ``\\u0022``), or among the dropped ones: ``raw`` has more quotes exactly when a member
    repeats (three C-level passes over the bytes).
    """
    units = len(listed) - 2 + separators  # the brackets of the list, the separators
    if len(raw) == units + dropped.size:
        return False
    return raw.count(b'"') != listed.count(b'"') + dropped.quotes or b"\\u0022" in raw

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

import array
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import msgspec
from msgspec import UNSET

from streamer.framework.errors.types import SourceError
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.source_unit import SourceUnit
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


def decode_lines(block: bytes | memoryview) -> list[SourceUnit] | None:
    """Decode a block of JSON lines, one unit per line (msgspec skips blank lines: the
    caller counts); ``None`` when any line breaks the contract (it is then parsed again,
    line by line, to locate the problem)."""
    try:
        return _decoder.decode_lines(block)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


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


class Hits(NamedTuple):
    """Where the unit IDs a reader was asked to look for (``wanted``) are in a batch:
    (offset in the batch, unit ID) of each unit whose ID is wanted, in order. Found
    beside the parse (by the processes of ``--jobs``), so that the consumer need
    not look the batch's IDs up again."""

    wanted: frozenset[str]
    found: list[tuple[int, str]]


class Batch(NamedTuple):
    """Validated units in document order, with their unit IDs (read in the same loop
    that checks them: each unit is touched once while it is still in cache) and, when
    the reader was given IDs to look for, where they are (``hits``)."""

    units: Sequence[SourceUnit]  # a list, or decoded on demand (``source.parallel``)
    ids: Sequence[str]  # a list, or decoded when first read (``source.parallel``)
    hits: Hits | None = None


class Dropped(NamedTuple):
    """What the canonical JSON of a batch leaves out of the units' JSON text: the checked
    self-references and empty metadata, in quote characters and in bytes (as compact
    JSON, escaped as msgspec escapes)."""

    quotes: int
    size: int


_REFERENCE_SIZE = len(b',"source_ref":{"start_unit_id":,"end_unit_id":}')
_EMPTY_METADATA_SIZE = len(b',"metadata":{}')


def encode_canonical(units: list[SourceUnit]) -> bytes:
    """The canonical lines of checked ``units``, one call."""
    return _canonical.encode_lines(units)


class LineMarks:
    """Where some of the canonical lines of the blocks a parser yields start: the first
    of every ``EVERY`` units of each block, as (line index, byte offset) among all the
    lines yielded, found for nothing while they are encoded (``EVERY`` units at a time).
    A consumer of the lines finds any other line from the mark before it, in at most
    ``EVERY - 1`` searches for a newline (``source.parallel``).

    ``encode`` is the encoder of ``canonical_units``; ``commit`` records the marks of its
    last call, when the parser yields what it encoded (a block may be encoded twice)."""

    EVERY = 32

    def __init__(self) -> None:
        self.lines = array.array("q")
        self.offsets = array.array("q")
        self.count = 0  # lines committed
        self.size = 0  # and their bytes
        self._sizes: list[int] = []  # of the groups of the last encoding

    def encode(self, units: list[SourceUnit]) -> bytes:
        every = self.EVERY
        if len(units) <= every:
            lines = _canonical.encode_lines(units)
            self._sizes = [len(lines)]
            return lines
        groups = [
            _canonical.encode_lines(units[i : i + every]) for i in range(0, len(units), every)
        ]
        self._sizes = [len(group) for group in groups]
        return b"".join(groups)

    def commit(self, count: int) -> None:
        """The last encoding, of ``count`` units, was yielded."""
        line, offset = self.count, self.size
        for size in self._sizes:
            self.lines.append(line)
            self.offsets.append(offset)
            line += self.EVERY
            offset += size
        self.count += count
        self.size = offset
        self._sizes = []


def canonical_units(
    units: list[SourceUnit],
    where: Where,
    encode: Callable[[list[SourceUnit]], bytes] = encode_canonical,
) -> tuple[bytes, list[str], Dropped]:
    """Finish validating ``units`` (in place) and return their canonical JSON, one line a
    unit, each ending with ``\\n``, which is exactly what the semantic digest covers,
    their unit IDs, and what of their JSON text the canonical JSON drops (see
    ``has_duplicate_members``).

    What a type cannot state is checked here, a batch at a time: in one loop,
    ``start_ms <= end_ms`` and which units have empty metadata (it is the same as none, and
    dropped); a self-reference must cite its unit (and is then dropped: the digest does
    not cover it). Then one encoding (``encode``: ``encode_canonical``, or a
    ``LineMarks``' that notes where some lines start).
    """
    empty = _check_metadata(units, where)
    ids = [unit.unit_id for unit in units]
    referenced = [unit for unit in units if unit.source_ref is not UNSET]
    quotes, size = _drop_references(referenced, units, where) if referenced else (0, 0)
    if empty:
        for unit in empty:
            unit.metadata = UNSET
        quotes += 2 * len(empty)
        size += _EMPTY_METADATA_SIZE * len(empty)
    return encode(units), ids, Dropped(quotes, size)


def _check_metadata(units: list[SourceUnit], where: Where) -> list[SourceUnit]:
    """Fail on the first unit whose ``start_ms`` is after its ``end_ms``; the units whose
    metadata is empty."""
    empty = []
    for unit in units:
        item = unit.metadata
        if item is not UNSET:
            start = item.start_ms
            if start is not UNSET:
                end = item.end_ms
                if end is not UNSET and start > end:
                    index = units.index(unit)
                    _check_references(units[:index], where)  # the first problem wins
                    raise SourceError(f"{where(index)}.metadata: start_ms is after end_ms")
            elif item.end_ms is UNSET and item.speaker is UNSET:
                empty.append(unit)
    return empty


def _check_references(units: list[SourceUnit], where: Where) -> None:
    """Fail on the first unit whose self-reference does not cite the unit itself."""
    for index, unit in enumerate(units):
        reference = unit.source_ref
        if reference is not UNSET and (
            reference.start_unit_id != unit.unit_id or reference.end_unit_id != unit.unit_id
        ):
            validate_unit(msgspec.to_builtins(unit), where(index))


def _drop_references(
    referenced: list[SourceUnit], units: list[SourceUnit], where: Where
) -> tuple[int, int]:
    """Check and drop the self-references of ``referenced`` (among ``units``); what they
    took in the JSON text (quotes, bytes)."""
    for unit in referenced:
        reference = unit.source_ref
        unit_id = unit.unit_id
        assert reference is not UNSET
        if reference.start_unit_id != unit_id or reference.end_unit_id != unit_id:
            _check_references(units, where)
        unit.source_ref = UNSET
    # "source_ref":{"start_unit_id":ID,"end_unit_id":ID}: 10 quotes, and one for each
    # (escaped) quote of the ID, written twice; the IDs' JSON in one encoding
    count = len(referenced)
    listed_ids = _published.encode([unit.unit_id for unit in referenced])
    id_quotes = listed_ids.count(b'"') - 2 * count
    id_bytes = len(listed_ids) - 2 - (count - 1)
    return 10 * count + 2 * id_quotes, _REFERENCE_SIZE * count + 2 * id_bytes


def has_duplicate_members(
    raw: bytes, separators: int, lines: bytes, count: int, dropped: Dropped
) -> bool:
    """Whether the JSON text ``raw`` of ``count`` accepted units, ``separators`` bytes
    between and around them, may repeat a member name, given ``canonical_units``' result
    for them, ``lines`` (``True`` is then decided exactly, by a parse).

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
    if len(raw) == len(lines) - count + separators + dropped.size:  # a newline a line
        return False
    return raw.count(b'"') != lines.count(b'"') + dropped.quotes or b"\\u0022" in raw

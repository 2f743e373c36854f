"""The units of a JSON source document: the items of ``units``, a buffer at a time.

The JSON form is read in buffers, each scanned as bytes by ``NestingScan``
(``framework.json.byte_scan``), which bounds the nesting depth before any parser sees it and
knows where each array item of ``units`` ends: the complete items of a buffer are decoded
by msgspec as one array (the quick way, below), and the end of ``units`` is found exactly,
so the members after it are read (by the ``Envelope``) from what follows it. Repeated
member names are refused (counted, see ``units.has_duplicate_members``); every error names
a JSON path, never content.

The JSON form is read in one process whatever ``--jobs``: where its quick way cuts a
buffer depends on how the items before the cut decode.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    duplicate_message,
    first_duplicate,
)
from streamer.framework.json.item_runs import ItemRuns, RunError, after_separator
from streamer.framework.source.envelope import Envelope, skip_space
from streamer.framework.source.json_lines import ParsedBlock
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import (
    Dropped,
    canonical_units,
    decode_array,
    has_duplicate_members,
)
from streamer.framework.source.unit_rules import validate_unit

_NESTING_HINT = f"a source document nests at most {MAX_NESTING} levels (a valid one, 4)"


class JsonUnits:
    """The units of a JSON source document read from ``stream``, positioned just after
    the ``[`` of ``units``, in batches of at most ``batch_units``; the members after
    ``units`` go to ``envelope``."""

    def __init__(self, stream: Any, buffer_size: int, batch_units: int, envelope: Envelope) -> None:
        self._stream = stream
        self._buffer_size = buffer_size
        self._batch_units = batch_units
        self._envelope = envelope

    def batches(self) -> Iterator[ParsedBlock]:
        """The items of ``units``, in runs of complete items (``json.item_runs.ItemRuns``: most
        cut at a buffer's last item separator, the others by the nesting scan, which bounds
        the nesting depth and finds the end of ``units``), then the members after ``units``.
        A run that does not decode is parsed again, item by item, to locate the problem."""
        count = 0  # the items read
        read = functools.partial(self._stream.read, self._buffer_size)
        runs = ItemRuns(read, b"", _decode_units)
        try:
            for run in runs:
                if run.closer == b"":
                    raise SourceError(
                        f"the source document is not valid JSON {_place(count)}: "
                        "the input ends inside $.units"
                    )
                if run.value is None:
                    _locate_item_problem(after_separator(run.raw, run.first), count)
                    raise SourceError(  # pragma: no cover - the two validations disagree
                        f"$.units[{count}]: a unit of this batch breaks the contract"
                    )
                yield from self._batches_of(*run.value, count)
                count += len(run.value[0])
        except NestingError as error:
            raise SourceError(
                f"the source document is {error.message} {_place(count)}",
                hint=_NESTING_HINT,
            ) from None
        except RunError:
            raise SourceError(f"the source document is not valid JSON {_place(count)}") from None
        self._read_tail(runs.rest[1:], read)

    def _read_tail(self, first: bytes, read: Callable[[], bytes]) -> None:
        """Read the members after ``units`` (``first`` and what ``read`` gives, up to the end
        of the input), failing at once on one whose value is an array or object."""
        scan = NestingScan(depth=1)
        parts: list[bytes] = []
        for tail in itertools.chain((first,), iter(read, b"")):
            try:
                _, profile = scan.feed(tail)
            except NestingError as error:
                raise SourceError(
                    f"the source document is {error.message} after $.units", hint=_NESTING_HINT
                ) from None
            parts.append(tail)
            if max(profile) > 1:
                self._tail_container(b"".join(parts))
        self._read_trailing_members(b"".join(parts))

    def _batches_of(self, units: list[SourceUnit], body: bytes, base: int) -> Iterator[ParsedBlock]:
        """The checked batches of ``units``, decoded from the JSON text ``body``."""
        if not units:
            return
        step = self._batch_units
        batches = []
        quotes = size = 0
        for offset in range(0, len(units), step):
            part = units[offset : offset + step]
            lines, ids, dropped = canonical_units(part, _json_path_from(base + offset))
            quotes, size = quotes + dropped.quotes, size + dropped.size
            batches.append((part, lines, ids))
        lines = batches[0][1] if len(batches) == 1 else b"".join(b[1] for b in batches)
        count = len(units)
        # compact text is checked by its size (the items' commas are its only separators);
        # else raw newlines are white space between items: counting them keeps it exact
        if len(body) != len(lines) - 1 + size and has_duplicate_members(
            body, count - 1 + body.count(b"\n"), lines, count, Dropped(quotes, size)
        ):
            _locate_item_problem(body, base)  # when there is one
        yield from batches

    def _tail_container(self, tail: bytes) -> None:
        """Fail on the member after ``units`` whose value is an array or object (it is
        never read into memory)."""
        text = tail.decode("utf-8", "replace")
        self._envelope.read_after_units(text, stop_at_container=True)
        raise SourceError("$: the source document is not valid JSON after $.units")

    def _read_trailing_members(self, tail_bytes: bytes) -> None:
        """Read the members that follow ``units`` (``tail_bytes`` starts just after its
        closing bracket)."""
        try:
            tail = tail_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise SourceError("the source document is not valid UTF-8 after $.units") from None
        self._envelope.read_after_units(tail, stop_at_container=False)


def _decode_units(text: bytes, literals: int | None) -> tuple[list[SourceUnit], bytes] | None:
    """The units of ``text`` (a JSON array) and the text of its items; ``None`` when it
    breaks the contract."""
    units = decode_array(text)
    return None if units is None else (units, text[1:-1])


def _locate_item_problem(body: bytes, base: int) -> None:
    """Raise the located error of the first item of ``body`` (items of ``units`` from
    ``base``, comma-separated) that is not valid JSON, repeats a member name or breaks
    the contract."""
    text = body.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder(parse_constant=_no_constant)
    position = skip_space(text, 0)
    index = base
    while position < len(text):
        where = f"$.units[{index}]"
        try:
            item, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            raise SourceError(f"the source document is not valid JSON at {where}") from None
        raw = text[position:end]
        try:
            raw_bytes = raw.encode("utf-8")
        except UnicodeEncodeError:
            raise SourceError(f"the source document is not valid UTF-8 at {where}") from None
        found = first_duplicate(raw_bytes, where)
        if found is not None:
            raise SourceError(duplicate_message(*found))
        try:
            orjson.dumps(item)
        except TypeError:
            raise SourceError(f"{where}: a string holds an unpaired surrogate escape") from None
        validate_unit(item, where)
        position = skip_space(text, end)
        if position < len(text):
            if text[position] != ",":
                raise SourceError(f"the source document is not valid JSON after {where}")
            position = skip_space(text, position + 1)
            if position >= len(text):
                raise SourceError(f"the source document is not valid JSON after {where}")
        index += 1


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _place(count: int) -> str:
    return "in $.units" if count == 0 else f"after $.units[{count - 1}]"


def _json_path_from(base: int) -> Callable[[int], str]:
    return lambda index: f"$.units[{base + index}]"

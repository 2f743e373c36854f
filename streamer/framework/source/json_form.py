"""The units of a JSON source document: the items of ``units``, a buffer at a time.

The JSON form is read in buffers, each scanned as bytes by ``NestingScan``
(``framework.json_bytes``), which bounds the nesting depth before any parser sees it and
knows where each array item of ``units`` ends: the complete items of a buffer are decoded
by msgspec as one array (the quick way, below), and the end of ``units`` is found exactly,
so the members after it are read (by the ``Envelope``) from what follows it. Repeated
member names are refused (counted, see ``units.has_duplicate_members``); every error names
a JSON path, never content.

The JSON form is read in one process whatever ``--jobs``: where its quick way cuts a
buffer depends on how the items before the cut decode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from streamer.framework.errors import SourceError
from streamer.framework.json_bytes import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    array_cut,
    duplicate_message,
    first_at,
    first_duplicate,
)
from streamer.framework.source.envelope import Envelope, skip_space
from streamer.framework.source.json_lines import ParsedBlock
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.unit_rules import validate_unit
from streamer.framework.source.units import (
    Dropped,
    canonical_units,
    decode_array,
    has_duplicate_members,
)

_WS = re.compile(rb"[ \t\n\r]*")
_BYTES_WS = b" \t\n\r"


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
        """The items of ``units``, a buffer's complete items at a time, then the members
        after ``units``. The stream is positioned just after the ``[`` of ``units``.

        Most buffers take the quick way: the run up to the buffer's last ``},`` is decoded
        as items, which succeeds only when that ``}`` really ends an item of ``units`` (a
        cut inside a string leaves the string open; a cut past the end of ``units`` leaves
        text after the array), and the decoder's types bound the nesting (a unit nests 3
        levels at most). A buffer without one, or whose cut does not decode, and what is
        left at the end of the input, are scanned exactly by ``NestingScan`` (from the last
        item known to end: depth 2, outside any string), which locates every problem and
        finds the end of ``units``; the quick way resumes at the next item end it finds.
        """
        state = _UnitsState()
        stream = self._stream
        while chunk := stream.read(self._buffer_size):
            if state.scan is None and state.tail is None:
                data = b"".join((*state.pending, chunk)) if state.pending else chunk
                quick = self._quick_run(state, data)
                if quick is not None:
                    yield from quick
                    continue
                state.scan, state.pending, chunk = NestingScan(depth=2), [], data
            yield from self._exact_run(state, chunk)
        if state.tail is None and state.scan is None and state.pending:
            state.scan, data, state.pending = NestingScan(depth=2), b"".join(state.pending), []
            yield from self._exact_run(state, data)
        if state.tail is None:
            raise SourceError(
                f"the source document is not valid JSON {_place(state.count)}: "
                "the input ends inside $.units"
            )
        self._read_trailing_members(b"".join(state.tail))

    def _quick_run(self, state: _UnitsState, data: bytes) -> list[ParsedBlock] | None:
        """The batches of ``data``'s items up to its last ``},``, if they decode as items
        of ``units``; ``None`` (nothing done) otherwise."""
        cut = _item_cut(data)
        if cut < 0:
            return None
        decoded = self._decode_run(data[: cut + 1], state.count, tentative=True)
        if decoded is None:
            return None
        state.pending = [data[cut + 1 :]]
        batches = list(self._batches_of(*decoded, state.count))
        state.count += len(decoded[0])
        return batches

    def _exact_run(self, state: _UnitsState, chunk: bytes) -> Iterator[ParsedBlock]:
        """Scan ``chunk`` exactly (``state.scan``) and yield the items that end in it."""
        scan = state.scan
        assert scan is not None
        try:
            neutral, profile = scan.feed(chunk)
        except NestingError as error:
            place = "after $.units" if state.tail is not None else _place(state.count)
            raise SourceError(
                f"the source document is {error.message} {place}",
                hint=f"a source document nests at most {MAX_NESTING} levels (a valid one, 4)",
            ) from None
        if state.tail is not None:
            if max(profile) > 1:
                self._tail_container(b"".join((*state.tail, chunk)))
            state.tail.append(chunk)
            return
        end, position = array_cut(neutral, profile, scan.in_string)
        if end >= 0:  # ``units`` ends in this buffer
            run = b"".join((*state.pending, chunk[:end]))
            yield from self._run(run, state.count, final=True)
            state.tail = [chunk[end + 1 :]]
            if max(profile[first_at(profile, 1) :]) > 1:
                self._tail_container(state.tail[0])
            return
        if position < 0:  # no item ends in this buffer
            state.pending.append(chunk)
            return
        run = b"".join((*state.pending, chunk[: position + 1]))
        state.pending = [chunk[position + 1 :]]
        state.scan = None  # an item ends here: the quick way may resume
        for units, lines, ids in self._run(run, state.count, final=False):
            state.count += len(units)
            yield units, lines, ids

    def _decode_run(
        self, run: bytes, base: int, *, tentative: bool = False
    ) -> tuple[list[SourceUnit], bytes] | None:
        """The units of ``run`` (complete items of ``units``, the first at index ``base``,
        with the separator before them) and their JSON text; ``tentative``: ``None``
        when it does not decode, else the located error is raised."""
        body = run.lstrip(_BYTES_WS)
        if base:
            if body[:1] != b",":
                if tentative:
                    return None
                raise SourceError(f"the source document is not valid JSON {_place(base)}")
            body = body[1:]
        units = decode_array(b"[" + body + b"]")
        if units is None:
            if tentative:
                return None
            _locate_item_problem(body, base)
            raise SourceError(  # pragma: no cover - the two validations disagree
                f"$.units[{base}]: a unit of this batch breaks the contract"
            )
        return units, body

    def _run(self, run: bytes, base: int, *, final: bool) -> Iterator[ParsedBlock]:
        """Decode ``run``: complete items of ``units`` (the first at index ``base``), with
        the separator before them; at the end of ``units`` (``final``) it may hold none."""
        if final and not run.strip(_BYTES_WS):
            return
        decoded = self._decode_run(run, base)
        assert decoded is not None
        yield from self._batches_of(*decoded, base)

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


def _item_cut(data: bytes, tries: int = 64) -> int:
    """The index of the ``}`` of the last ``}``, ``,`` and ``{`` (white space between) in
    ``data``: where an item of ``units`` may end (``-1``: none). Inside a unit a ``},``
    is followed by a member name, never by ``{``."""
    cut = data.rfind(b"},{")
    if cut >= 0:
        return cut
    end = len(data)
    for _ in range(tries):
        cut = data.rfind(b"},", 0, end)
        if cut < 0:
            break
        after = _WS.match(data, cut + 2).end()  # type: ignore[union-attr]
        if data[after : after + 1] == b"{":
            return cut
        end = cut + 1
    return -1


@dataclass
class _UnitsState:
    """Where ``JsonUnits.batches`` is in ``units``: the exact scan (``None`` at an item end,
    where the quick way reads), the bytes after the last complete item, what follows
    ``units`` once it has ended, and the items read."""

    scan: NestingScan | None = None
    pending: list[bytes] = field(default_factory=list)
    tail: list[bytes] | None = None
    count: int = 0


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

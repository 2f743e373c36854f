"""Streaming the items of one top-level array member of a JSON object.

The importers of JSON formats (``crd3``: ``TURNS``, ``whisperx``: ``segments``) read one
item at a time. ijson's own error messages quote the bytes around the error, which would
carry transcript text into an error line, so every parse error is replaced by a
content-safe message naming the last item read.

Before a parser sees a byte, it is scanned (``framework.json_bytes.NestingScan``): input
nested deeper than ``MAX_NESTING`` levels, anywhere (also in members that are skipped,
such as CRD3's ``METADATA``), is refused before it is parsed (ijson's cost grows with the
square of the depth). Repeated member names are refused, anywhere, with the path of the
object (RFC 7493).

Two paths, one answer. The reference path is ijson's event stream, checked event by event
in Python (``_Tap``): it is what decides every error. The fast path reads the arrays
that are members of the top-level object (``TURNS``, ``segments``, ``word_segments``:
nearly all the bytes) without it: ijson parses the rest of the document (``_Diverting``
stops its input just after such an array's ``[``), and the array's content is cut, by
the nesting scan (or, once it has found where one item ends and the next begins, by the
quick cut: the last such separator of a buffer, found by ``rfind``, its run checked by
decoding it typed, see ``_quick_items``), into runs of complete items, each run decoded
at once by msgspec (numbers that are not integers as ``Decimal``, exactly as ijson gives
them) and checked for repeated member names by counting strings
(``json_bytes.string_literals``: a parsed run has fewer strings than its text when a
member repeats). A run that fails to decode
or to count is read again by the reference path, which yields its items up to the
problem and raises the located error; so the items, and the errors, are those of the
reference path.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal, DecimalException
from typing import Any, BinaryIO

import ijson
import msgspec
import orjson

from streamer.framework.errors import SourceError
from streamer.framework.json_bytes import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    array_cut,
    array_opening,
    string_literals,
)
from streamer.framework.json_events import MemberNames

BUFFER_SIZE = 1 << 16
_WHITE_SPACE = b" \t\r\n"
_decoder = msgspec.json.Decoder(float_hook=Decimal)
_encoder = msgspec.json.Encoder(decimal_format="number")
# The end of an item, the comma and the start of the next one up to its first member name:
# where the quick cut looks for item ends (``rfind``) once the exact cut has found one.
_SEPARATOR = re.compile(rb'\}[ \t\r\n]*,[ \t\r\n]*\{[ \t\r\n]*"[^"\\]{1,64}"')


class _Bounded:
    """A binary stream whose bytes are scanned for their nesting depth as they are read."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._scan = NestingScan()

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self._scan.feed(data)
        return data


class _Tap:
    """Checks the document's shape on the event stream and forwards only the events of
    ``member`` (the rest of the document, e.g. CRD3's METADATA, is never built)."""

    def __init__(self, member: str) -> None:
        self.member = member
        self.started = False
        self.found = False
        self.ended = False

    def events(self, events: Iterator[tuple[str, str, Any]]) -> Iterator[tuple[str, str, Any]]:
        member = self.member
        inside = False  # between the member's start_array and its end_array
        names = MemberNames(SourceError)
        for prefix, event, value in events:
            if not self.started:
                self.started = True
                if event != "start_map":
                    raise SourceError("$ must be a JSON object")
            names.event(prefix, event, value)
            if inside:
                if prefix == member and event == "end_array":
                    inside = False
                    self.ended = True
                yield prefix, event, value
            elif prefix == "" and event == "map_key" and value == member:
                self.found = True
                _, event, value = next(events, ("", "end", None))
                if event != "start_array":
                    raise SourceError(f"$.{member} must be an array")
                names.event(member, event, value)
                inside = True
                yield member, event, value


class _Progress:
    """Where the reading is, for the location of a parse error."""

    def __init__(self, member: str) -> None:
        self.member = member
        self.started = False
        self.found = False
        self.ended = False
        self.count = 0  # the items of the member yielded so far

    def where(self) -> str:
        if self.ended:
            return f"after $.{self.member}"
        if self.found:
            return f"at $.{self.member}[{self.count}]"  # the item being read
        if self.started:
            return f"before $.{self.member}"
        return "at the start of the input"


def array_items(stream: BinaryIO, member: str) -> Iterator[tuple[int, Any]]:
    """``(index, item)`` for each item of the array ``$.<member>``, which is required."""
    for index, items in array_runs(stream, member):
        yield from enumerate(items, index)


Strings = Callable[[list[Any]], int]  # the member names and string values of decoded items
Kinds = Sequence[tuple[type[msgspec.Struct], Strings]]  # item types to try, each with its count


class _Typed:
    """The typed decodings tried on the runs of one array, in order, starting with the
    one that decoded the last run (a document's items tend to have one shape)."""

    def __init__(self, kinds: Kinds) -> None:
        self.tries = [
            (msgspec.json.Decoder(list[kind]).decode, count)  # type: ignore[valid-type]
            for kind, count in kinds
        ]
        self.first = 0  # the index of the try that decoded the last run

    def items(self, text: bytes, literals: int) -> list[Any] | None:
        """The items of ``text`` (a JSON array of ``literals`` string literals) as the
        first try that decodes them with as many strings, or ``None``."""
        tries = self.tries
        for index in (self.first, *range(self.first), *range(self.first + 1, len(tries))):
            decode, strings = tries[index]
            try:
                items = decode(text)
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            if items and strings(items) == literals:
                self.first = index
                return items  # type: ignore[no-any-return]
            break  # it decoded but a member repeats (or none): the reference path says where
        return None


def array_runs(
    stream: BinaryIO,
    member: str,
    kinds: Kinds = (),
    others: Mapping[str, Kinds] | None = None,
) -> Iterator[tuple[int, list[Any]]]:
    """``(index of the first, items)`` for each run of items of the array ``$.<member>``
    (which is required), in order: the items ``array_items`` gives, a run at a time (a
    run decoded at once by the fast path; one item a run from the reference path).

    With ``kinds``, each run of the fast path is first decoded as a list of one of these
    structs, tried in order (each forbids unknown fields, and its optional fields default
    to ``UNSET``, so that it encodes exactly the members it was decoded from): a run that
    decodes, and has as many strings as its items encode (no member repeated), is given
    as those structs; any other run is read as without them. Each struct comes with the
    count of the strings of such items (member names and string values: those that
    encoding them would write), made without encoding them: a struct whose members are
    all required has a fixed count an item, counted without a step per item. ``others``
    does the same for other top-level arrays, read and dropped (only to check them,
    faster than a plain decoding)."""
    progress = _Progress(member)
    typed = {name: _Typed(tries) for name, tries in {**(others or {}), member: kinds}.items()}
    source = _Diverting(stream, {name: tried for name, tried in typed.items() if tried.tries})
    try:
        for name, runs in _top_level_arrays(source, progress):
            if name != member:
                for _ in runs:  # read (checked) and dropped
                    pass
                continue
            for items in runs:
                yield progress.count, items
                progress.count += len(items)
            progress.ended = True
    except NestingError as error:
        raise SourceError(
            f"the input is {error.message}",
            hint=f"WhisperX and CRD3 input nests at most {MAX_NESTING} levels",
        ) from None
    except DecimalException:  # a number's exponent beyond what a decimal can hold
        raise SourceError(
            f"a number out of range (its exponent) {progress.where()}",
            hint="write the number without a huge exponent",
        ) from None
    except (ijson.JSONError, UnicodeDecodeError) as error:
        reason = (
            "not valid UTF-8"
            if isinstance(error, UnicodeDecodeError) or "UTF8" in str(error)
            else "not valid JSON"
        )
        raise SourceError(f"{reason} {progress.where()}") from None
    if not progress.found:
        raise SourceError(f"$.{member} is required")


def _top_level_arrays(
    source: _Diverting, progress: _Progress
) -> Iterator[tuple[str, Iterator[list[Any]]]]:
    """The document's events checked as ``_Tap`` checks them; for each array that is a
    member of the top-level object, ``(member name, its runs of items)`` (to be read at
    once)."""
    member = progress.member
    names = MemberNames(SourceError)
    name = ""  # the last member name of the top-level object
    expect_array = False
    for prefix, event, value in ijson.parse(source, buf_size=BUFFER_SIZE):
        if not progress.started:
            progress.started = True
            if event != "start_map":
                raise SourceError("$ must be a JSON object")
        if expect_array:
            expect_array = False
            if event != "start_array":
                raise SourceError(f"$.{member} must be an array")
        if event == "map_key" and names.depth == 1:
            name = value
            if value == member:
                progress.found = expect_array = True
        elif event == "start_array" and names.depth == 1 and source.at_array:
            yield name, source.runs(name)
        names.event(prefix, event, value)


class _Diverting:
    """The stream as ijson reads it, scanned for its nesting: each array that is a member
    of the top-level object is cut out (ijson reads ``[]``), and read by ``items``."""

    def __init__(self, stream: BinaryIO, typed: Mapping[str, _Typed] | None = None) -> None:
        self._stream = stream
        self._typed = typed or {}  # tried on the runs of the arrays it names
        self._scan = NestingScan()
        self._held = b""  # read from the stream, not yet given out
        self.at_array = False  # the input given to ijson ends with such an array's "["

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        data, self._held = self._held, b""
        if not data:
            data = self._stream.read(size)
        scan = self._scan
        probe = copy.copy(scan)
        neutral, profile = probe.feed(data)
        if max(profile) < 2:
            self._scan = probe
            return data
        cut = array_opening(neutral, scan.in_string, scan.depth)
        if cut < 0:
            self._scan = probe
            return data
        scan.feed(data[: cut + 1])
        self._held = data[cut + 1 :]
        self.at_array = True
        return data[: cut + 1]

    def runs(self, name: str) -> Iterator[list[Any]]:
        """The items of the array cut out, up to its ``]`` (given to ijson next), in runs."""
        self.at_array = False
        scan = NestingScan(depth=2)
        pending: list[bytes] = []  # the bytes of items not yet complete
        quotes = 0  # the quotes of ``pending`` that delimit strings
        first = True  # no run of this array decoded yet
        typed = self._typed.get(name)
        separator = b""  # between two items, as the first cut found it (the quick cut's key)
        quick = True  # no quick cut failed since the last exact cut
        failures = 0  # quick cuts that failed (past 4, none is tried: the separator is
        # found inside items, e.g. words whose first member is the segments')
        data, self._held = self._held, b""
        while True:
            if not data:
                data = self._stream.read(BUFFER_SIZE)
                if not data:  # the input ends inside the array
                    yield from _reference_items(name, b"".join(pending), first, closed=False)
                    raise ijson.IncompleteJSONError("the input ends inside an array")
            # the quick cut (see ``_quick_items``), tried on what follows an exact cut (a
            # failed try costs at most two buffers, once between two exact cuts)
            cut = data.rfind(separator) if separator and quick and len(pending) < 2 else -1
            if cut >= 0 and typed is not None:
                items = _quick_items(b"".join((*pending, data[: cut + 1])), first, typed)
                quick = items is not None
                failures += not quick
                if failures > 4:
                    separator = b""
                    failures = -1  # learned no more
                if items is not None:
                    NestingScan(depth=2).feed(data[cut + 1 :])  # raises as the scan would
                    yield items
                    first = False
                    scan, pending, quotes = NestingScan(depth=2), [], 0
                    data = data[cut + 1 :]  # read by the scan: no separator after the cut
            neutral, profile = scan.feed(data)
            end, position = array_cut(neutral, profile, scan.in_string)
            if end >= 0:  # the array ends in this buffer
                if data[end : end + 1] != b"]":  # a "}" closes it: not JSON; the
                    # reference path reads up to it and says where
                    run = b"".join((*pending, data[: end + 1]))
                    yield from _reference_items(name, run, first, closed=False)
                    raise ijson.IncompleteJSONError("an array closed by a brace")
                run = b"".join((*pending, data[:end]))
                quotes += neutral.count(b'"', 0, end)
                yield from _run(name, run, quotes // 2, first, final=True, typed=typed)
                self._held = data[end:]
                return
            if position < 0:  # no item ends in this buffer
                pending.append(data)
                quotes += neutral.count(b'"')
                data = b""
                continue
            quick = True
            if not separator and typed is not None and failures >= 0:
                after = _SEPARATOR.match(data, position)
                separator = b"" if after is None else after.group()
            run = b"".join((*pending, data[: position + 1]))
            literals = (quotes + neutral.count(b'"', 0, position + 1)) // 2
            pending = [data[position + 1 :]]
            quotes = neutral.count(b'"', position + 1)
            data = b""
            yield from _run(name, run, literals, first, final=False, typed=typed)
            first = False


def _quick_items(run: bytes, first: bool, typed: _Typed) -> list[Any] | None:
    """The items of ``run``, cut before a separator found by ``rfind`` (not by the nesting
    scan), decoded by ``typed``; ``None`` when they do not decode, or a member repeats.

    A cut inside a string or inside an item leaves the run open (an unclosed string, an
    array or object not closed), which msgspec refuses: a wrong cut costs a decoding,
    never a wrong item. Runs that decode are items of a struct's fixed depth (never too
    deeply nested: the nesting scan would have found nothing), whose every string was
    decoded (valid UTF-8) and counted (no member repeated); anything else is read again
    by the nesting scan's exact cut, which says what is wrong where."""
    body = run.lstrip(_WHITE_SPACE)
    if not first:
        if body[:1] != b",":
            return None
        body = body[1:]
    return typed.items(b"[" + body + b"]", string_literals(body))


def _run(
    name: str, run: bytes, literals: int, first: bool, *, final: bool, typed: _Typed | None = None
) -> Iterator[list[Any]]:
    """The items of ``run``, complete items of the array ``name`` with the separator
    before them (none before the first run), and ``literals`` strings (counted by the
    nesting scan, which neutralized the escaped quotes); at the array's end (``final``)
    it may hold none."""
    body = run.lstrip(_WHITE_SPACE)
    if not body and final:
        return
    if not first:
        if body[:1] != b",":
            raise ijson.JSONError("items without a separator")
        body = body[1:]
        if not body.strip(_WHITE_SPACE):
            raise ijson.JSONError("a separator without an item")
    text = b"[" + body + b"]"
    if typed is not None:
        items = typed.items(text, literals)
        if items is not None:
            yield items
            return
    try:
        items = _decoder.decode(text)
    except (msgspec.DecodeError, DecimalException):  # the reference path locates it
        items = None
    if items and literals == string_literals(_encoder.encode(items)):
        yield items
    else:
        yield from _reference_items(name, body, first=True, closed=True)


def _reference_items(name: str, body: bytes, first: bool, *, closed: bool) -> Iterator[list[Any]]:
    """The items of ``body`` (items of the array ``name``) read by the reference path,
    one a run, which raises the located error of the first problem."""
    if not first:
        body = body.lstrip(_WHITE_SPACE)
        if body[:1] != b",":
            if not body:
                return
            raise ijson.JSONError("items without a separator")
        body = body[1:]
    document = b"{" + orjson.dumps(name) + b":[" + body + (b"]}" if closed else b"")
    tap = _Tap(name)
    events = tap.events(ijson.parse(_Bounded(io.BytesIO(document)), buf_size=BUFFER_SIZE))
    for item in ijson.items(events, f"{name}.item"):
        yield [item]

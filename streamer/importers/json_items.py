"""Streaming the items of one top-level array member of a JSON object.

The importers of JSON formats (``crd3``: ``TURNS``, ``whisperx``: ``segments``) read one
item at a time. ijson's own error messages quote the bytes around the error, which would
carry transcript text into an error line, so every parse error is replaced by a
content-safe message naming the last item read.

Before a parser sees a byte, it is scanned (``framework.json.byte_scan.NestingScan``): input
nested deeper than ``MAX_NESTING`` levels, anywhere (also in members that are skipped,
such as CRD3's ``METADATA``), is refused before it is parsed (ijson's cost grows with the
square of the depth). Repeated member names are refused, anywhere, with the path of the
object (RFC 7493).

Two paths, one answer. The reference path is ijson's event stream, checked event by event
in Python (``_Tap``): it is what decides every error. The fast path reads the arrays
that are members of the top-level object (``TURNS``, ``segments``, ``word_segments``:
nearly all the bytes) without it: ijson parses the rest of the document (``_Diverting``
stops its input just after such an array's ``[``), and the array's content is cut
(``framework.json.item_runs.ItemRuns``: at a buffer's last item separator, else by the nesting
scan) into runs of complete items, each run decoded at once by msgspec (numbers that are
not integers as ``Decimal``, exactly as ijson gives them) and checked for repeated member
names by counting strings (``json.byte_scan.string_literals``: a parsed run has fewer strings
than its text when a member repeats). A run that fails to decode
or to count is read again by the reference path, which yields its items up to the
problem and raises the located error; so the items, and the errors, are those of the
reference path.
"""

from __future__ import annotations

import copy
import functools
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal, DecimalException
from typing import Any, BinaryIO

import ijson
import msgspec
import orjson

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    array_opening,
    string_literals,
)
from streamer.framework.json.events import MemberNames
from streamer.framework.json.item_runs import ItemRuns, after_separator

BUFFER_SIZE = 1 << 16
_decoder = msgspec.json.Decoder(float_hook=Decimal)
_encoder = msgspec.json.Encoder(decimal_format="number")


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
    return _array_runs(stream, member, kinds, others, 0)


def array_run_texts(stream: BinaryIO, member: str, kinds: Kinds, read_size: int) -> Iterator[bytes]:
    """The runs of ``$.<member>`` as ``array_runs`` cuts them (``kinds``: its fast path),
    from reads of ``read_size`` bytes, undecoded: each the JSON array text of its items
    (``[...]``), for ``decode_run`` (elsewhere: another process). The cuts are not
    checked: one that falls inside an item gives a text that does not decode (a run
    after it may be any bytes). Everything else is checked as ``array_runs`` checks it,
    but a run that its reference path would read is an error (``not valid JSON``); the
    errors are ``array_runs``'s, not always located as it locates them."""
    for _, text in _array_runs(stream, member, kinds, None, read_size):
        yield text


def _array_runs(
    stream: BinaryIO,
    member: str,
    kinds: Kinds,
    others: Mapping[str, Kinds] | None,
    raw: int,
) -> Iterator[tuple[int, Any]]:
    """``array_runs``; ``raw``: ``array_run_texts``'s read size (0: the runs decoded)."""
    progress = _Progress(member)
    typed = {name: _Typed(tries) for name, tries in {**(others or {}), member: kinds}.items()}
    source = _Diverting(stream, {name: tried for name, tried in typed.items() if tried.tries})
    if raw:
        source.raw = (member, raw)
    try:
        for name, runs in _top_level_arrays(source, progress):
            if name != member:
                for _ in runs:  # read (checked) and dropped
                    pass
                continue
            for items in runs:
                yield progress.count, items
                progress.count += 0 if raw else len(items)
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
        # the array whose runs are given undecoded, and its read size (None: no such
        # array; a member may be named "")
        self.raw: tuple[str | None, int] = (None, 0)

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

    def runs(self, name: str) -> Iterator[Any]:
        """The items of the array cut out, up to its ``]`` (given to ijson next), in runs."""
        self.at_array = False
        typed = self._typed.get(name)
        held, self._held = self._held, b""
        raw = name == self.raw[0]
        runs: ItemRuns[Any] = ItemRuns(
            functools.partial(self._stream.read, self.raw[1] if raw else BUFFER_SIZE),
            held,
            _undecoded if raw else functools.partial(_decode, typed),
            separator=None if typed is not None else b"",  # the quick cut needs a type
        )
        for run in runs:
            if raw and run.closer in (None, b"]"):
                yield run.value  # the text: _undecoded never refuses one
                continue
            if raw:
                raise ijson.IncompleteJSONError("a run the reference path reads")
            if run.closer is None or run.closer == b"]":
                if run.value is None:  # the reference path reads it, and locates the error
                    yield from _reference_items(name, run.raw, run.first, closed=True)
                else:
                    yield run.value
                continue
            # a brace closes the array, or the input ends inside it: the reference path
            # reads up to there, and says where
            yield from _reference_items(name, run.raw + run.closer, run.first, closed=False)
            raise ijson.IncompleteJSONError("the input ends inside an array")
        if runs.rest[:1] != b"]":  # a "}" closes it: not JSON
            raise ijson.IncompleteJSONError("an array closed by a brace")
        self._held = runs.rest


def _undecoded(text: bytes, literals: int | None) -> bytes:
    return text


def decode_run(typed: _Typed, text: bytes) -> list[Any] | None:
    """The items of ``text``, a run of ``array_runs(raw=...)``, as its fast path decodes
    them (``typed``: ``typed_runs(kinds)``); ``None`` when they would be read by the
    reference path (they do not decode, a member repeats, or the cut was wrong)."""
    return _decode(typed, text, string_literals(text))


def typed_runs(kinds: Kinds) -> _Typed:
    """The typed decodings of ``decode_run``."""
    return _Typed(kinds)


def _decode(typed: _Typed | None, text: bytes, literals: int | None) -> list[Any] | None:
    """The items of ``text``, a JSON array of complete items: as typed structs (see
    ``array_runs``), else (unless cut by the quick cut: ``literals`` ``None``) decoded
    plainly; ``None`` when they do not decode, or a member repeats (``literals``: the
    string literals of ``text``, as the nesting scan counted them), so that the
    reference path locates it. A quick cut's run that decodes as structs is items of a
    fixed depth (the nesting scan would have found nothing), whose every string was
    decoded (valid UTF-8) and counted (no member repeated)."""
    if typed is not None:
        items = typed.items(text, string_literals(text) if literals is None else literals)
        if items is not None or literals is None:
            return items
    try:
        items = _decoder.decode(text)
    except (msgspec.DecodeError, DecimalException):  # the reference path locates it
        return None
    if items and literals == string_literals(_encoder.encode(items)):
        return items  # type: ignore[no-any-return]
    return None


def _reference_items(name: str, raw: bytes, first: bool, *, closed: bool) -> Iterator[list[Any]]:
    """The items of ``raw`` (a run of the array ``name``) read by the reference path, one
    a run, which raises the located error of the first problem."""
    body = after_separator(raw, first)
    document = b"{" + orjson.dumps(name) + b":[" + body + (b"]}" if closed else b"")
    tap = _Tap(name)
    events = tap.events(ijson.parse(_Bounded(io.BytesIO(document)), buf_size=BUFFER_SIZE))
    for item in ijson.items(events, f"{name}.item"):
        yield [item]

"""The incremental source document reader: JSON or JSON Lines, one pass, bounded memory.

``SourceDocumentReader(stream).batches()`` yields validated units in document order, a
batch at a time with their unit IDs (iterating the reader yields the units one by one),
and, once exhausted, the reader exposes the document's identity with the semantic digest
verified (when declared) or computed (when absent).

JSON Lines are read in blocks of whole lines, each decoded and type-checked by msgspec in
one call (``source.units``).

The form is detected from the first top-level object: if it holds ``units`` the input is
one JSON document; otherwise the object is a JSON Lines header and every further line is
one unit.

JSON documents are read with ijson's C backend building the units
(``items(..., "units.item")``, taken 256 at a time), the fastest way it offers. That
call ignores the other top-level members, so those are read separately and exactly: the
members before
``units`` by a short scan of the document's head, the members after it from the last
few buffers read, located by re-finding the last unit (see ``_TailTap``).
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, Literal

import ijson
import orjson

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.errors import SourceError
from streamer.framework.safe_text import quoted
from streamer.framework.source.units import (
    Batch,
    SourceUnit,
    canonical_units,
    convert_units,
    decode_lines,
)

DEFAULT_BUFFER_SIZE = 1 << 20
JSON_BATCH_UNITS = 256
_ENVELOPE = frozenset({"document_id", "semantic_digest"})
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_PYTHON_BACKEND = ijson.get_backend("python")

SourceForm = Literal["json", "jsonl"]


@dataclass(frozen=True)
class DocumentIdentity:
    """What identifies an accepted source document, known once it has been read."""

    document_id: str
    semantic_digest: str
    unit_count: int


class _Replay(io.RawIOBase):
    """A raw stream that first replays ``prefix`` and then reads on from ``stream``."""

    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        self._prefix = memoryview(prefix)
        self._stream: Any = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            size = min(len(buffer), len(self._prefix))
            buffer[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        try:
            return int(self._stream.readinto(buffer))  # no intermediate copy
        except (AttributeError, NotImplementedError, io.UnsupportedOperation):
            data = self._stream.read(len(buffer))
            size = len(data)
            buffer[:size] = data
            return size


class _Recorder:
    """Reads from ``stream`` and keeps every byte read (used for the short head scan)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.chunks: list[bytes] = []

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self.chunks.append(data)
        return data


class _TailTap:
    """Reads through to ijson and retains the buffers from the one in which the
    previous batch of units ended: the last unit, the end of ``units`` and any member
    after it are always within what is retained, and only about a batch is ever held."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._chunks: list[bytes] = []
        self._first = 0  # absolute index of _chunks[0]
        self._count = 0  # chunks read so far
        self._previous = 0  # absolute index of the chunk in which the previous unit ended

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self._chunks.append(data)
        self._count += 1
        return data

    def batch_ended(self) -> None:
        if self._previous > self._first:
            del self._chunks[: self._previous - self._first]
            self._first = self._previous
        self._previous = self._count - 1

    def retained(self) -> bytes:
        return b"".join(self._chunks)


class _JsonLines:
    """Parses blocks of complete JSON Lines into validated batches.

    Each line of a block is decoded and validated as one unit by msgspec (a JSON line
    cannot hold a raw newline, so each newline separates two lines). A block with any
    line that breaks the contract is parsed again line by line, to locate the problem:
    blank lines are accepted only at the end of the document.
    """

    def __init__(self, first_line: int) -> None:
        self.next_line = first_line
        self.blank = 0  # the first blank line seen, which must not be followed by a unit

    def parse(self, block: bytes) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        """Parse complete lines (the last one's newline is optional)."""
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        first = self.next_line
        self.next_line += count
        where = _line_from(first)
        units = None if self.blank else decode_lines(block, count)
        if units is None:
            lines = block.split(b"\n")[:count]
            units = convert_units(self._line_by_line(lines, first), where)
        if units:
            yield units, *canonical_units(units, where)

    def _line_by_line(self, lines: list[bytes], first: int) -> list[Any]:
        objects: list[Any] = []
        for number, line in enumerate(lines, first):
            if not line.strip():
                self.blank = self.blank or number
                continue
            if self.blank:
                raise SourceError(f"line {self.blank}: empty line inside JSON Lines")
            try:
                objects.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                raise SourceError(f"line {number}: not valid {_problem(line)}") from None
        return objects


class SourceDocumentReader:
    """Iterate the validated units of a source document read from a binary stream."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        buffer_size: int = DEFAULT_BUFFER_SIZE,
        batch_units: int = JSON_BATCH_UNITS,
    ) -> None:
        self._buffer_size = buffer_size
        self._batch_units = batch_units
        self._envelope: dict[str, str] = {}
        self._identity: DocumentIdentity | None = None
        self._digest = SemanticDigest()
        self._count = 0
        self.form: SourceForm = self._scan_head(stream)

    # -- head -------------------------------------------------------------------------

    def _scan_head(self, stream: BinaryIO) -> SourceForm:
        recorder = _Recorder(stream)
        form: SourceForm | None = None
        try:
            events = _PYTHON_BACKEND.parse(
                recorder, multiple_values=True, buf_size=min(self._buffer_size, 4096)
            )
            form = self._read_head_events(events)
        except ijson.JSONError:
            form = None
        except UnicodeDecodeError:
            raise SourceError("the source document is not valid UTF-8") from None
        if form is None:
            head = b"".join(recorder.chunks)
            if not head.strip():
                raise SourceError("the source document is empty")
            try:
                codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
            except UnicodeDecodeError:
                raise SourceError("the source document is not valid UTF-8") from None
            raise SourceError(
                "the source document does not start with a JSON object",
                hint="a source document is one JSON object with units, or JSON Lines "
                "whose first line is the header",
            )
        if form == "jsonl":
            self._envelope = {}  # the header line is read again, with line numbers
        buffered = io.BufferedReader(
            _Replay(b"".join(recorder.chunks), stream), buffer_size=max(self._buffer_size, 1)
        )
        self._stream = buffered
        return form

    def _read_head_events(self, events: Iterator[tuple[str, str, Any]]) -> SourceForm | None:
        prefix, event, _ = next(events)
        if (prefix, event) != ("", "start_map"):
            return None
        for prefix, event, value in events:
            if prefix == "" and event == "end_map":
                return "jsonl"
            if prefix == "" and event == "map_key":
                if value == "units":
                    _, event, _ = next(events)
                    if event != "start_array":
                        raise SourceError("$.units must be an array of unit objects")
                    return "json"
                self._check_member(value, "$")
                _, event, member = next(events)
                self._set_envelope(value, member if event == "string" else None, "$")
        return None

    def _check_member(self, name: str, where: str) -> None:
        if name not in _ENVELOPE:
            raise SourceError(
                f"{where}: unknown document member {quoted(name)}",
                hint="a source document accepts document_id, semantic_digest and units",
            )
        if name in self._envelope:
            raise SourceError(f"{where}: document member {name} appears twice")

    def _set_envelope(self, name: str, value: Any, where: str) -> None:
        self._check_member(name, where)
        if type(value) is not str or not value:
            raise SourceError(f"{where}.{name} must be a non-empty string")
        if name == "semantic_digest" and not _DIGEST.match(value):
            raise SourceError(
                f"{where}.semantic_digest must be 'sha256:' followed by 64 lowercase hex digits"
            )
        self._envelope[name] = value

    # -- units ------------------------------------------------------------------------

    def __iter__(self) -> Iterator[SourceUnit]:
        for batch in self.batches():
            yield from batch.units

    def batches(self) -> Iterator[Batch]:
        """The validated units in document order, a few thousand at a time.

        Parsing, validation and digesting work on whole batches, which is what keeps the
        per-unit cost of a multi-gigabyte pass close to the parser's own.
        """
        batches = self._json_batches() if self.form == "json" else self._jsonl_batches()
        digest = self._digest
        count = 0
        for units, listed, ids in batches:
            digest.add_canonical_list(listed)
            count += len(units)
            yield Batch(units, ids)
        self._count = count
        self._identity = self._finish()

    def _jsonl_batches(self) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        stream = self._stream
        header_line = stream.readline()
        try:
            header = orjson.loads(header_line)
        except orjson.JSONDecodeError:
            raise SourceError(
                "line 1: the JSON Lines header must be one JSON object on the first line"
            ) from None
        for name, value in header.items():
            self._set_envelope(name, value, "line 1")
        lines = _JsonLines(first_line=2)
        block_size = max(self._buffer_size, 1)
        while block := stream.read(block_size):
            if not block.endswith(b"\n"):
                block = b"".join((block, stream.readline()))  # complete the last line
            yield from lines.parse(block)

    def _json_batches(self) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        tap = _TailTap(self._stream)
        items = ijson.items(tap, "units.item", buf_size=self._buffer_size)
        count = 0
        last: dict[str, Any] | None = None
        try:
            while batch := list(itertools.islice(items, self._batch_units)):
                tap.batch_ended()
                where = _json_path_from(count)
                units = convert_units(batch, where)
                listed, ids = canonical_units(units, where)
                count += len(units)
                last = batch[-1]
                yield units, listed, ids
        except ijson.JSONError as error:
            # yajl's message quotes the input: it is inspected, never shown. The location
            # is that of the last complete batch: the problem lies somewhere after it.
            problem = "UTF-8" if "UTF8" in str(error) else "JSON"
            place = "in $.units" if count == 0 else f"after $.units[{count - 1}]"
            raise SourceError(f"the source document is not valid {problem} {place}") from None
        except UnicodeDecodeError:
            raise SourceError("the source document is not valid UTF-8") from None
        self._read_trailing_members(tap.retained(), last)

    def _read_trailing_members(self, tail_bytes: bytes, last: dict[str, Any] | None) -> None:
        """Read the members that follow ``units`` from the retained tail of the document."""
        tail = tail_bytes.decode("utf-8", "replace")
        if last is None:
            # No units: nothing was dropped, the tail is the whole (small) document.
            self._read_members_after_units(_object_pairs(tail), skip_before_units=True)
            return
        end = _end_of_unit(tail, last)
        match = _JSON_SPACE.match(tail, end)
        position = match.end() if match else end
        if tail[position : position + 1] != "]":
            raise SourceError("$.units: could not locate the end of the array")
        position = _JSON_SPACE.match(tail, position + 1).end()  # type: ignore[union-attr]
        if tail[position : position + 1] == ",":
            members = _object_pairs("{" + tail[position + 1 :])
            self._read_members_after_units(members, skip_before_units=False)

    def _read_members_after_units(
        self, members: list[tuple[str, Any]], *, skip_before_units: bool
    ) -> None:
        after = not skip_before_units
        for name, value in members:
            if name == "units":
                if after:
                    raise SourceError("$: document member units appears twice")
                after = True
            elif after:
                self._set_envelope(name, value, "$")

    # -- end --------------------------------------------------------------------------

    def _finish(self) -> DocumentIdentity:
        document_id = self._envelope.get("document_id")
        if document_id is None:
            where = "line 1" if self.form == "jsonl" else "$"
            raise SourceError(f"{where}.document_id is required")
        computed = self._digest.hexdigest()
        declared = self._envelope.get("semantic_digest")
        if declared is not None and declared != computed:
            raise SourceError(
                f"semantic_digest does not match the units: declared {declared}, "
                f"computed {computed}",
                hint="the transcript changed after the digest was written, or the digest "
                "belongs to another document",
            )
        return DocumentIdentity(document_id, computed, self._count)

    @property
    def identity(self) -> DocumentIdentity:
        if self._identity is None:
            raise RuntimeError("the source document has not been read to its end")
        return self._identity


def _end_of_unit(tail: str, last: dict[str, Any]) -> int:
    """Index just past the last unit's closing brace in ``tail``.

    ``last`` is the last unit as parsed. Candidates are tried from the end. A ``{`` inside
    a string can never start an object equal to the last unit (object keys need unescaped
    quotes, which a string cannot hold), and one inside the unit starts a smaller object,
    so the match is exact.
    """
    decoder = json.JSONDecoder()
    position = len(tail)
    while True:
        position = tail.rfind("{", 0, position)
        if position < 0:
            raise SourceError("$.units: could not locate the last unit")
        try:
            candidate, end = decoder.raw_decode(tail, position)
        except ValueError:
            continue
        if candidate == last:
            return int(end)


def _line_from(first: int) -> Callable[[int], str]:
    return lambda index: f"line {first + index}"


def _json_path_from(base: int) -> Callable[[int], str]:
    return lambda index: f"$.units[{base + index}]"


def _problem(line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return "UTF-8"
    return "JSON"


def _object_pairs(text: str) -> list[tuple[str, Any]]:
    try:
        pairs: list[tuple[str, Any]] = json.loads(text, object_pairs_hook=list)
    except ValueError:
        raise SourceError("the source document is not valid JSON after $.units") from None
    return pairs

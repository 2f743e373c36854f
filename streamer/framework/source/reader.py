"""The incremental source document reader: JSON or JSON Lines, one pass, bounded memory.

``SourceDocumentReader(stream).batches()`` yields validated units in document order, a
batch at a time with their unit IDs (iterating the reader yields the units one by one),
and, once exhausted, the reader exposes the document's identity with the semantic digest
verified (when declared) or computed (when absent). A reader reads its document once.

The form is detected from the first top-level object: if it holds ``units`` the input is
one JSON document; otherwise the object is a JSON Lines header and every further line is
one unit. The head (the members before ``units``, or the header line) is read by
``_Head``, a small exact tokenizer that reads ahead in doubling steps, so a long
``document_id`` costs time linear in its length.

JSON Lines are read in blocks of whole lines, each decoded and type-checked by msgspec in
one call (``source.units``). The JSON form is read in buffers, each scanned as bytes by
``NestingScan`` (``framework.json_bytes``), which bounds the nesting depth before any
parser sees it and knows where each array item of ``units`` ends: the complete items of
a buffer are decoded by msgspec as one array, and the end of ``units`` is found exactly,
so the members after it are read from what follows it. Both forms refuse repeated member
names (counted, see ``units.has_duplicate_members``); every error names a line or a
JSON path, never content.

With ``jobs`` > 1 the blocks of JSON Lines are parsed by worker processes
(``source.parallel``), to the same units, digest and errors. (The JSON form is read in
this process whatever ``jobs``: where its quick way cuts a buffer depends on how the
items before the cut decode.)
"""

from __future__ import annotations

import codecs
import io
import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal

import orjson

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.errors import SourceError
from streamer.framework.json_bytes import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    bracket_position,
    duplicate_message,
    first_duplicate,
)
from streamer.framework.safe_text import quoted
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.unit_rules import validate_unit
from streamer.framework.source.units import (
    Batch,
    Dropped,
    canonical_units,
    convert_units,
    decode_array,
    decode_lines,
    has_duplicate_members,
)

# 128 KiB: a batch's units are still in the CPU's caches when they are checked, encoded
# and indexed (1 MiB blocks measured about 20% slower)
DEFAULT_BUFFER_SIZE = 1 << 17
JSON_BATCH_UNITS = 1 << 14
HEAD_READ = 1 << 12
_ENVELOPE = frozenset({"document_id", "semantic_digest"})
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")
_WS = re.compile(rb"[ \t\n\r]*")
_LINE_WS = re.compile(rb"[ \t\r]*")
_JSON_WS = " \t\n\r"
_BYTES_WS = b" \t\n\r"

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


def _string_value(raw: bytes, where: str) -> str:
    """The value of one JSON string literal (quotes included), refused unless it is
    exact JSON: valid escapes, no raw control character, valid UTF-8, no unpaired
    surrogate escape."""
    try:
        value = json.loads(raw)
        value.encode("utf-8")
    except UnicodeDecodeError:
        raise SourceError("the source document is not valid UTF-8") from None
    except UnicodeEncodeError:
        raise SourceError(f"{where}: a string holds an unpaired surrogate escape") from None
    except ValueError:
        raise SourceError(f"{where}: not a valid JSON string") from None
    assert type(value) is str
    return value


class _Head:
    """The members of the first top-level object up to ``units`` (or to its end), read
    exactly from a buffer that grows by doubling (each retry of a token rescans at most
    as much as was read, so the cost is linear)."""

    def __init__(self, stream: BinaryIO, read_size: int) -> None:
        self._stream = stream
        self.data = bytearray()
        self._read_size = max(read_size, 1)
        self._eof = False

    def _more(self) -> bool:
        if self._eof:
            return False
        want = max(self._read_size, len(self.data))
        got = 0
        while got < want:
            chunk = self._stream.read(want - got)
            if not chunk:
                self._eof = True
                break
            self.data += chunk
            got += len(chunk)
        return got > 0

    def space(self, position: int) -> int:
        while True:
            end = _WS.match(self.data, position).end()  # type: ignore[union-attr]
            if end < len(self.data) or not self._more():
                return end

    def char(self, position: int) -> bytes:
        while position >= len(self.data) and self._more():
            pass
        return bytes(self.data[position : position + 1])

    def string(self, position: int) -> int | None:
        """The end of the string literal that starts at ``position``; ``None`` if the
        input ends inside it. Each byte is searched once (``find``, in C)."""
        data = self.data
        search = position + 1
        while True:
            quote = data.find(b'"', search)
            if quote < 0:
                search = len(data)
                if not self._more():
                    return None
                continue
            start = quote
            while start > position + 1 and data[start - 1] == 0x5C:  # backslashes before it
                start -= 1
            if (quote - start) % 2 == 0:  # not escaped
                return quote + 1
            search = quote + 1

    def line_end(self, position: int) -> int:
        while True:
            end = _LINE_WS.match(self.data, position).end()  # type: ignore[union-attr]
            if end < len(self.data) or not self._more():
                return end


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

    def parse(
        self, block: bytes | memoryview
    ) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        """Parse complete lines (the last one's newline is optional)."""
        first = self.next_line
        where = _line_from(first)
        unended = block[-1] != 0x0A  # a newline
        units = None if self.blank else decode_lines(block)
        checked = problem = None
        if units:
            try:
                checked = canonical_units(units, where)
            except SourceError as error:
                problem = error  # raised below, once the lines are known to be numbered right
            else:
                lines, ids, dropped = checked
                if len(block) == len(lines) - unended + dropped.size:
                    # each line one unit as compact as its canonical JSON: no blank line and
                    # no repeated member (``has_duplicate_members``), nothing more to count
                    self.next_line += len(units)
                    yield units, lines, ids
                    return
        block = bytes(block)  # the exact way: counted, split and searched as bytes
        newlines = block.count(b"\n")
        count = newlines + unended
        self.next_line += count
        if units is None or len(units) != count:  # a blank line or a bad one: locate it
            raw_lines = block.split(b"\n")[:count]
            units = convert_units(self._line_by_line(raw_lines, first), where)
            checked = problem = None
        if problem is not None:
            raise problem
        if units:
            lines, ids, dropped = canonical_units(units, where) if checked is None else checked
            if has_duplicate_members(block, newlines, lines, len(units), dropped):
                _locate_duplicate_line(block, first)  # when there is one
            yield units, lines, ids

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


def _locate_duplicate_line(block: bytes, first: int) -> None:
    for number, line in enumerate(block.split(b"\n"), first):
        if line.strip():
            found = first_duplicate(line, f"line {number}")
            if found is not None:
                raise SourceError(duplicate_message(*found))


class SourceDocumentReader:
    """Iterate the validated units of a source document read from a binary stream."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        buffer_size: int = DEFAULT_BUFFER_SIZE,
        batch_units: int = JSON_BATCH_UNITS,
        jobs: int = 1,
    ) -> None:
        self._buffer_size = max(buffer_size, 1)
        self._batch_units = max(batch_units, 1)
        self._jobs = jobs
        self._envelope: dict[str, str] = {}
        self._identity: DocumentIdentity | None = None
        self._digest = SemanticDigest()
        self._count = 0
        self._read = False
        self.form: SourceForm = self._scan_head(stream)

    # -- head -------------------------------------------------------------------------

    def _scan_head(self, stream: BinaryIO) -> SourceForm:
        head = _Head(stream, min(self._buffer_size, HEAD_READ))
        position = head.space(0)
        if head.char(position) != b"{":
            self._not_an_object(head.data, position)
        form: SourceForm | None = None
        position = head.space(position + 1)
        if head.char(position) == b"}":
            form, position = "jsonl", position + 1
        while form is None:
            name, position = self._head_string(head, position, "$")
            position = head.space(position)
            if head.char(position) != b":":
                raise SourceError("$: the source document is not valid JSON")
            position = head.space(position + 1)
            if name == "units":
                if self._envelope and "units" in self._envelope:  # pragma: no cover
                    raise SourceError("$: document member units appears twice")
                if head.char(position) != b"[":
                    raise SourceError("$.units must be an array of unit objects")
                form, position = "json", position + 1
                break
            self._check_member(name, "$")
            value: str | None = None
            if head.char(position) == b'"':
                value, position = self._head_string(head, position, f"$.{name}")
            self._set_envelope(name, value, "$")
            position = head.space(position)
            separator = head.char(position)
            if separator == b"}":
                form, position = "jsonl", position + 1
            elif separator != b",":
                raise SourceError("$: the source document is not valid JSON")
            else:
                position = head.space(position + 1)
        data = head.data
        if form == "jsonl":
            if b"\n" in data[:position]:
                raise SourceError(
                    "line 1: the JSON Lines header must be one JSON object on the first line"
                )
            end = head.line_end(position)
            if bytes(data[end : end + 1]) not in (b"\n", b""):
                raise SourceError(
                    "line 1: the JSON Lines header must be one JSON object on the first line"
                )
            position = end + 1
        self._stream = io.BufferedReader(
            _Replay(bytes(data[position:]), stream), buffer_size=self._buffer_size
        )
        return form

    def _head_string(self, head: _Head, position: int, where: str) -> tuple[str, int]:
        if head.char(position) != b'"':
            raise SourceError(f"{where}: the source document is not valid JSON")
        end = head.string(position)
        if end is None:
            raise SourceError(f"{where}: the source document ends inside a string")
        return _string_value(bytes(head.data[position:end]), where), end

    @staticmethod
    def _not_an_object(data: bytearray, position: int) -> None:
        if position >= len(data):
            raise SourceError("the source document is empty")
        try:
            codecs.getincrementaldecoder("utf-8")().decode(bytes(data), final=False)
        except UnicodeDecodeError:
            raise SourceError("the source document is not valid UTF-8") from None
        raise SourceError(
            "the source document does not start with a JSON object",
            hint="a source document is one JSON object with units, or JSON Lines "
            "whose first line is the header",
        )

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

    def batches(self) -> Generator[Batch, None, None]:
        """The validated units in document order, a batch at a time.

        Parsing, validation and digesting work on whole batches, which is what keeps the
        per-unit cost of a multi-gigabyte pass close to the parser's own.
        """
        if self._read:
            raise RuntimeError(
                "this SourceDocumentReader has already read its document: "
                "a reader reads its document once (open a new one)"
            )
        self._read = True
        return self._batches()

    def _batches(self) -> Generator[Batch, None, None]:
        if self._jobs > 1 and self.form == "jsonl":  # parsed by workers (``source.parallel``)
            from streamer.framework.source.parallel import parallel_batches

            self._count = yield from parallel_batches(self, self._digest, self._jobs)
            self._identity = self._finish()
            return
        batches = self._json_batches() if self.form == "json" else self._jsonl_batches()
        digest = self._digest
        count = 0
        for units, lines, ids in batches:
            digest.add_canonical_lines(lines)
            count += len(units)
            yield Batch(units, ids)
        self._count = count
        self._identity = self._finish()

    def _jsonl_batches(self) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        lines = _JsonLines(first_line=2)
        for block in self._jsonl_blocks():
            yield from lines.parse(block)

    def _jsonl_blocks(self) -> Iterator[bytes | memoryview]:
        """The lines after the header, in blocks of whole lines (the last one's newline is
        optional at the end of the document).

        Each read goes straight into a new buffer after what the last one left of an
        unfinished line, and a block is a view of that buffer up to its last newline: the
        source's bytes are copied once (a buffered read and a join copied them twice more).
        A line longer than a read doubles the next one, so a long line costs linear time.
        """
        raw = self._stream.raw  # the header's remainder, then the source: read unbuffered
        block_size = self._buffer_size
        carry = b""  # the start of a line the last buffer did not finish
        want = block_size
        while True:
            buffer = bytearray(len(carry) + want)
            buffer[: len(carry)] = carry
            view = memoryview(buffer)
            filled = len(carry)
            while filled < len(buffer):
                got = raw.readinto(view[filled:])
                if not got:
                    break
                filled += got
                if filled >= len(carry) + block_size // 2:  # enough for a block: go on
                    break
            if filled == len(carry):  # the end of the source
                if carry:
                    yield carry
                return
            end = buffer.rfind(b"\n", len(carry), filled) + 1
            if end == 0:  # no line ends here yet: read on, twice as much
                carry, want = bytes(view[:filled]), max(block_size, 2 * filled)
                continue
            yield view[:end]
            carry, want = bytes(view[end:filled]), block_size

    def _json_batches(self) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
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

    def _quick_run(
        self, state: _UnitsState, data: bytes
    ) -> list[tuple[list[SourceUnit], bytes, list[str]]] | None:
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

    def _exact_run(
        self, state: _UnitsState, chunk: bytes
    ) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
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
        brackets = len(profile) - 1
        end = _first(profile, 1)
        if end is not None:  # ``units`` ends in this buffer
            position = bracket_position(neutral, scan.in_string, brackets - end + 1)
            run = b"".join((*state.pending, chunk[:position]))
            yield from self._run(run, state.count, final=True)
            state.tail = [chunk[position + 1 :]]
            if max(profile[end:]) > 1:
                self._tail_container(state.tail[0])
            return
        last = _last(profile, 2)
        if last is None:  # no item ends in this buffer
            state.pending.append(chunk)
            return
        position = bracket_position(neutral, scan.in_string, brackets - last + 1)
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

    def _run(
        self, run: bytes, base: int, *, final: bool
    ) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
        """Decode ``run``: complete items of ``units`` (the first at index ``base``), with
        the separator before them; at the end of ``units`` (``final``) it may hold none."""
        if final and not run.strip(_BYTES_WS):
            return
        decoded = self._decode_run(run, base)
        assert decoded is not None
        yield from self._batches_of(*decoded, base)

    def _batches_of(
        self, units: list[SourceUnit], body: bytes, base: int
    ) -> Iterator[tuple[list[SourceUnit], bytes, list[str]]]:
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
        self._read_members_after_units(text, stop_at_container=True)
        raise SourceError("$: the source document is not valid JSON after $.units")

    def _read_trailing_members(self, tail_bytes: bytes) -> None:
        """Read the members that follow ``units`` (``tail_bytes`` starts just after its
        closing bracket)."""
        try:
            tail = tail_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise SourceError("the source document is not valid UTF-8 after $.units") from None
        self._read_members_after_units(tail, stop_at_container=False)

    def _read_members_after_units(self, tail: str, *, stop_at_container: bool) -> None:
        decoder = json.JSONDecoder()
        invalid = SourceError("the source document is not valid JSON after $.units")
        position = _skip(tail, 0)
        while tail[position : position + 1] == ",":
            position = _skip(tail, position + 1)
            try:
                name, position = decoder.raw_decode(tail, position)
            except ValueError:
                raise invalid from None
            position = _skip(tail, position)
            if type(name) is not str or tail[position : position + 1] != ":":
                raise invalid
            position = _skip(tail, position + 1)
            if name == "units":
                raise SourceError("$: document member units appears twice")
            self._check_member(name, "$")
            if tail[position : position + 1] != '"':
                self._set_envelope(name, None, "$")  # not a string: refused
            try:
                value, position = decoder.raw_decode(tail, position)
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise SourceError(
                    f"$.{name}: a string holds an unpaired surrogate escape"
                ) from None
            except ValueError:
                raise invalid from None
            self._set_envelope(name, value, "$")
            position = _skip(tail, position)
        if stop_at_container:
            return
        if tail[position : position + 1] != "}" or tail[_skip(tail, position + 1) :]:
            raise invalid

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
    """Where ``_json_batches`` is in ``units``: the exact scan (``None`` at an item end,
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
    position = _skip(text, 0)
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
        position = _skip(text, end)
        if position < len(text):
            if text[position] != ",":
                raise SourceError(f"the source document is not valid JSON after {where}")
            position = _skip(text, position + 1)
            if position >= len(text):
                raise SourceError(f"the source document is not valid JSON after {where}")
        index += 1


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _skip(text: str, position: int) -> int:
    length = len(text)
    while position < length and text[position] in _JSON_WS:
        position += 1
    return position


def _first(profile: list[int], value: int) -> int | None:
    """The first index after 0 at which ``profile`` holds ``value``."""
    try:
        return profile.index(value, 1)
    except ValueError:
        return None


def _last(profile: list[int], value: int) -> int | None:
    """The last index after 0 at which ``profile`` holds ``value``."""
    try:
        return len(profile) - 1 - profile[:0:-1].index(value)
    except ValueError:
        return None


def _place(count: int) -> str:
    return "in $.units" if count == 0 else f"after $.units[{count - 1}]"


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

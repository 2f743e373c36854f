"""The head of a source document: its form, and what the reader reads before the units.

The form is detected from the first top-level object: if it holds ``units`` the input is
one JSON document; otherwise the object is a JSON Lines header and every further line is
one unit. ``scan_head`` reads the head (the members before ``units``, or the header line)
with ``Head``, a small exact tokenizer that reads ahead in doubling steps, so a long
``document_id`` costs time linear in its length, and returns the form and the stream
positioned just after the head (the bytes read ahead are replayed).

The members read go to the document's ``Envelope`` (``source.envelope``).
"""

from __future__ import annotations

import codecs
import io
import json
import re
from typing import Any, BinaryIO

from streamer.framework.errors.types import SourceError
from streamer.framework.source.envelope import Envelope, SourceForm

HEAD_READ = 1 << 12
_WS = re.compile(rb"[ \t\n\r]*")
_LINE_WS = re.compile(rb"[ \t\r]*")
_NOT_ONE_LINE = "line 1: the JSON Lines header must be one JSON object on the first line"


def scan_head(
    stream: BinaryIO, buffer_size: int, envelope: Envelope
) -> tuple[SourceForm, io.BufferedReader[Replay]]:
    """The document's form, its envelope members before the units read into
    ``envelope``, and a stream of what follows the head (JSON: just after the ``[`` of
    ``units``; JSON Lines: the line after the header)."""
    head = Head(stream, min(buffer_size, HEAD_READ))
    position = head.space(0)
    if head.char(position) != b"{":
        _not_an_object(head.data, position)
    form: SourceForm | None = None
    position = head.space(position + 1)
    if head.char(position) == b"}":
        form, position = "jsonl", position + 1
    while form is None:
        name, position = _head_string(head, position, "$")
        position = head.space(position)
        if head.char(position) != b":":
            raise SourceError("$: the source document is not valid JSON")
        position = head.space(position + 1)
        if name == "units":
            if head.char(position) != b"[":
                raise SourceError("$.units must be an array of unit objects")
            form, position = "json", position + 1
            break
        envelope.check(name, "$")
        value: str | None = None
        if head.char(position) == b'"':
            value, position = _head_string(head, position, f"$.{name}")
        envelope.set(name, value, "$")
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
            raise SourceError(_NOT_ONE_LINE)
        end = head.line_end(position)
        if bytes(data[end : end + 1]) not in (b"\n", b""):
            raise SourceError(_NOT_ONE_LINE)
        position = end + 1
    replay = Replay(bytes(data[position:]), stream, head_size=position)
    return form, io.BufferedReader(replay, buffer_size=buffer_size)


def _head_string(head: Head, position: int, where: str) -> tuple[str, int]:
    if head.char(position) != b'"':
        raise SourceError(f"{where}: the source document is not valid JSON")
    end = head.string(position)
    if end is None:
        raise SourceError(f"{where}: the source document ends inside a string")
    return string_value(bytes(head.data[position:end]), where), end


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


def string_value(raw: bytes, where: str) -> str:
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


class Replay(io.RawIOBase):
    """A raw stream that first replays ``prefix`` and then reads on from ``stream``;
    ``head_size``: the bytes of ``stream`` read before ``prefix`` (the head). A read
    never runs past the end of the prefix (so where the reads of a regular file end
    depends only on ``head_size`` and ``prefix_size``: ``source.parallel``)."""

    def __init__(self, prefix: bytes, stream: BinaryIO, head_size: int = 0) -> None:
        self._prefix = memoryview(prefix)
        self._stream: Any = stream
        self.head_size = head_size
        self.prefix_size = len(prefix)

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


class Head:
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

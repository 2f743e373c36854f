"""Reading a text transcript line by line, with line numbers, for the line-based formats.

Lines end with LF, CRLF or CR. The input is read in blocks and split into lines as it
comes, a block of whole lines decoded at once, so only a block (and the line that
continues past it) is held at a time whatever the line ends (a file that ends its lines
with CR alone streams like any other).

Encoding: UTF-8, with or without a byte order mark. A file that starts with the byte
order mark of UTF-16 or UTF-32 (little- or big-endian, as Windows subtitle editors write
them) is decoded as that encoding. Any other encoding is refused, with a hint naming
``iconv``: an invalid byte is reported with its line number (and never shown).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors.types import SourceError

BLOCK_SIZE = 1 << 16
_NEWLINE = re.compile(rb"\r\n?|\n")
_NEWLINE_TEXT = re.compile(r"\r\n?")
_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, None, "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_ICONV_HINT = "convert it to UTF-8 first, e.g. iconv -f WINDOWS-1252 -t UTF-8"

# ``NAME: text``: a name of 1 to 40 characters without a colon, not starting with white
# space, then a colon followed by white space or the end of the line. ``10:30``,
# ``https://...`` and ``a:b`` are not prefixes.
_SPEAKER_PREFIX = re.compile(r"([^\s:][^:]{0,39}?)[ \t]*:(?:[ \t]+|\Z)")
# WhisperX writes its speakers in brackets in its SRT, WebVTT and text output.
_WHISPERX_PREFIX = re.compile(r"\[(SPEAKER_[0-9]+)\][ \t]*:(?:[ \t]+|\Z)")
_BRACKETED = re.compile(r"\[[ \t]*([^\[\]]*?)[ \t]*\]\Z")


class _Transcoded:
    """A binary stream of UTF-16 or UTF-32 read as UTF-8 (unpaired surrogates pass
    through as bytes that are not UTF-8, so a line holding one is refused)."""

    def __init__(self, prefix: bytes, stream: BinaryIO, encoding: str, name: str) -> None:
        self._decoder = codecs.getincrementaldecoder(encoding)("surrogatepass")
        self._prefix = prefix
        self._stream = stream
        self._name = name

    def read(self, size: int) -> bytes:
        data = self._prefix + self._stream.read(size)
        self._prefix = b""
        text = self._decode(data)
        while not text and data:  # a block of less than one character
            data = self._stream.read(size)
            text = self._decode(data)
        return text.encode("utf-8", "surrogatepass")

    def _decode(self, data: bytes) -> str:
        try:
            return self._decoder.decode(data, final=not data)
        except UnicodeDecodeError:  # the input ends inside a character
            raise SourceError(
                f"the input is not valid {self._name}: it ends inside a character"
            ) from None


class _Prefixed:
    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        self._prefix = prefix
        self._stream = stream

    def read(self, size: int) -> bytes:
        if self._prefix:
            data, self._prefix = self._prefix, b""
            return data
        return self._stream.read(size)


def _decoded(stream: BinaryIO) -> tuple[_Prefixed | _Transcoded, str]:
    """The stream as UTF-8 bytes, without its byte order mark, and the encoding's name."""
    head = b""
    while len(head) < 4 and (data := stream.read(4 - len(head))):
        head += data
    for bom, encoding, name in _BOMS:
        if head.startswith(bom):
            rest = head[len(bom) :]
            if encoding is None:
                return _Prefixed(rest, stream), name
            return _Transcoded(rest, stream, encoding, name), name
    return _Prefixed(head, stream), "UTF-8"


def line_blocks(stream: BinaryIO) -> Iterator[tuple[int, list[str]]]:
    """``(number of the first line, lines without their ends)`` for each run of whole
    lines of ``stream``, in order: a block is decoded at once, and split into lines."""
    lines, encoding = _decoded(stream)
    number = 1
    pending: list[bytes] = []  # the start of a line that continues in the next block
    after_cr = False  # the last block ended with CR: an LF first in this one is its end
    while data := lines.read(BLOCK_SIZE):
        if after_cr and data.startswith(b"\n"):
            data = data[1:]
        after_cr = data.endswith(b"\r")
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut < 0:
            pending.append(data)
            continue
        end = cut - 1 if cut and data[cut] == 0x0A and data[cut - 1] == 0x0D else cut
        pending.append(data[:end])
        block = b"".join(pending)
        pending = [data[cut + 1 :]]
        decoded = _decode(block, number, encoding).split("\n")
        yield number, decoded
        number += len(decoded)
    if block := b"".join(pending):
        yield number, [_decode(block, number, encoding)]


def _decode(block: bytes, number: int, encoding: str) -> str:
    """The lines of ``block`` (the first is line ``number``), decoded, joined by LF."""
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = number + len(_NEWLINE.findall(block, 0, error.start))
        raise SourceError(f"line {bad}: not valid {encoding}", hint=_ICONV_HINT) from None
    return _NEWLINE_TEXT.sub("\n", text) if "\r" in text else text


def text_lines(stream: BinaryIO) -> Iterator[tuple[int, str]]:
    """``(line number from 1, line without its end)`` for every line of ``stream``."""
    for first, lines in line_blocks(stream):
        yield from enumerate(lines, first)


def split_speaker_prefix(text: str) -> tuple[str | None, str]:
    """``("MATT", "Roll initiative.")`` for ``"MATT: Roll initiative."``; ``(None, text)``
    when the text does not start with a speaker prefix. A name in brackets
    (``[SPEAKER_02]: text``, as WhisperX writes) is the name inside them."""
    match = _SPEAKER_PREFIX.match(text)
    if match is None:
        return None, text
    name = match.group(1).strip()  # not empty: it starts with a character that is not space
    if name[0] == "[":
        bracketed = _BRACKETED.match(name)
        if bracketed is not None and bracketed.group(1):
            name = bracketed.group(1)
    return name, text[match.end() :]


def split_whisperx_prefix(text: str) -> tuple[str | None, str]:
    """``("SPEAKER_02", "text")`` for WhisperX's ``"[SPEAKER_02]: text"``; ``(None,
    text)`` otherwise."""
    match = _WHISPERX_PREFIX.match(text) if text[:1] == "[" else None
    if match is None:
        return None, text
    return match.group(1), text[match.end() :]

"""Reading a text transcript line by line, with line numbers, for the line-based formats.

Lines end with LF, CRLF or CR. A UTF-8 byte order mark at the start is dropped. Each line
is decoded on its own, so an invalid byte is reported with its line number (and never
shown). Only one line is held at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors import SourceError

_BOM = b"\xef\xbb\xbf"

# ``NAME: text``: a name of 1 to 40 characters without a colon, not starting with white
# space, then a colon followed by white space or the end of the line. ``10:30``,
# ``https://...`` and ``a:b`` are not prefixes.
_SPEAKER_PREFIX = re.compile(r"([^\s:][^:]{0,39}?)[ \t]*:(?:[ \t]+|\Z)")


def text_lines(stream: BinaryIO) -> Iterator[tuple[int, str]]:
    """``(line number from 1, line without its end)`` for every line of ``stream``."""
    number = 0
    for raw in stream:
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        for part in raw.split(b"\r") if b"\r" in raw else (raw,):
            number += 1
            if number == 1 and part.startswith(_BOM):
                part = part[len(_BOM) :]
            try:
                line = part.decode("utf-8")
            except UnicodeDecodeError:
                raise SourceError(f"line {number}: not valid UTF-8") from None
            yield number, line


def split_speaker_prefix(text: str) -> tuple[str | None, str]:
    """``("MATT", "Roll initiative.")`` for ``"MATT: Roll initiative."``; ``(None, text)``
    when the text does not start with a speaker prefix."""
    match = _SPEAKER_PREFIX.match(text)
    if match is None:
        return None, text
    return match.group(1).strip(), text[match.end() :]

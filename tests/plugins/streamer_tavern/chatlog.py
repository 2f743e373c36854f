"""``chatlog``: a chat log, one message a line: ``[HH:MM] Name: text``. Lines are read one at
a time (never the whole log); a blank line is skipped; any other line is an error naming
its number, never its text."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors.types import SourceError
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.document import utterance
from streamer.importers.formats import ImportOptions, TranscriptFormat

_MESSAGE = re.compile(r"\[(\d\d):(\d\d)\] ([^:]+): (.+)")


def read_chatlog(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    lines = io.TextIOWrapper(stream, encoding="utf-8", newline=None)
    number = 0
    try:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            match = _MESSAGE.fullmatch(line.rstrip("\n"))
            if match is None:
                raise SourceError(
                    f"line {number}: not a chat message", hint="each line is '[HH:MM] Name: text'"
                )
            start_ms = (int(match[1]) * 60 + int(match[2])) * 60_000
            yield utterance(f"m{number:05d}", match[4], match[3].strip(), start_ms, start_ms)
    except UnicodeDecodeError:
        raise SourceError(f"line {number + 1}: not valid UTF-8") from None
    finally:
        lines.detach()


FORMAT = TranscriptFormat(
    "chatlog", "a chat log, '[HH:MM] Name: text' a line", read_chatlog, suffixes=(".chat",)
)

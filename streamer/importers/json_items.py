"""Streaming the items of one top-level array member of a JSON object with ijson.

The importers of JSON formats (``crd3``: ``TURNS``, ``whisperx``: ``segments``) read one
item at a time. ijson's own error messages quote the bytes around the error, which would
carry transcript text into an error line, so every parse error is replaced by a
content-safe message naming the last item read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson

from streamer.framework.errors import SourceError

BUFFER_SIZE = 1 << 16


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
        for prefix, event, value in events:
            if not self.started:
                self.started = True
                if event != "start_map":
                    raise SourceError("$ must be a JSON object")
            if inside:
                if prefix == member and event == "end_array":
                    inside = False
                    self.ended = True
                yield prefix, event, value
            elif prefix == "" and event == "map_key" and value == member:
                if self.found:
                    raise SourceError(f"$: member {member} appears twice")
                self.found = True
                _, event, value = next(events, ("", "end", None))
                if event != "start_array":
                    raise SourceError(f"$.{member} must be an array")
                inside = True
                yield member, event, value


def array_items(stream: BinaryIO, member: str) -> Iterator[tuple[int, Any]]:
    """``(index, item)`` for each item of the array ``$.<member>``, which is required."""
    tap = _Tap(member)
    index = -1
    try:
        events = tap.events(ijson.parse(stream, buf_size=BUFFER_SIZE))
        for item in ijson.items(events, f"{member}.item"):
            index += 1
            yield index, item
    except (ijson.JSONError, UnicodeDecodeError) as error:
        if tap.ended:
            where = f"after $.{member}"
        elif tap.found:
            where = f"at $.{member}[{index + 1}]"  # the item being read
        elif tap.started:
            where = f"before $.{member}"
        else:
            where = "at the start of the input"
        reason = (
            "not valid UTF-8"
            if isinstance(error, UnicodeDecodeError) or "UTF8" in str(error)
            else "not valid JSON"
        )
        raise SourceError(f"{reason} {where}") from None
    if not tap.found:
        raise SourceError(f"$.{member} is required")

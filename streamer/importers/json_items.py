"""Streaming the items of one top-level array member of a JSON object with ijson.

The importers of JSON formats (``crd3``: ``TURNS``, ``whisperx``: ``segments``) read one
item at a time. ijson's own error messages quote the bytes around the error, which would
carry transcript text into an error line, so every parse error is replaced by a
content-safe message naming the last item read.

Before ijson sees a byte, ``_Bounded`` scans it (``framework.json_bytes.NestingScan``):
input nested deeper than ``MAX_NESTING`` levels, anywhere (also in members that are
skipped, such as CRD3's ``METADATA``), is refused before it is parsed (ijson's cost grows
with the square of the depth). Repeated member names are refused, anywhere, with the
path of the object (RFC 7493).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson

from streamer.framework.errors import SourceError
from streamer.framework.json_bytes import (
    MAX_NESTING,
    NestingError,
    NestingScan,
    duplicate_message,
    member_path,
)

BUFFER_SIZE = 1 << 16


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
        names: list[set[str] | None] = []  # the member names of each open object
        for prefix, event, value in events:
            if not self.started:
                self.started = True
                if event != "start_map":
                    raise SourceError("$ must be a JSON object")
            if event == "map_key":
                seen = names[-1]
                assert seen is not None
                if value in seen:
                    raise SourceError(duplicate_message(_path(prefix), value))
                seen.add(value)
            elif event == "start_map":
                names.append(set())
            elif event == "start_array":
                names.append(None)
            elif event in ("end_map", "end_array"):
                names.pop()
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
                names.append(None)
                inside = True
                yield member, event, value


def array_items(stream: BinaryIO, member: str) -> Iterator[tuple[int, Any]]:
    """``(index, item)`` for each item of the array ``$.<member>``, which is required."""
    tap = _Tap(member)
    index = -1
    try:
        events = tap.events(ijson.parse(_Bounded(stream), buf_size=BUFFER_SIZE))
        for item in ijson.items(events, f"{member}.item"):
            index += 1
            yield index, item
    except NestingError as error:
        raise SourceError(
            f"the input is {error.message}",
            hint=f"WhisperX and CRD3 input nests at most {MAX_NESTING} levels",
        ) from None
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


def _path(prefix: str) -> str:
    """The JSON path of the object whose ijson prefix is ``prefix`` (``a.item.b``):
    array positions are not tracked, ``[*]`` stands for them."""
    path = "$"
    for part in prefix.split(".") if prefix else ():
        path = f"{path}[*]" if part == "item" else member_path(path, part)
    return path

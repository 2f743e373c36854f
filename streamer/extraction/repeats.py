"""An answer that writes a record it already wrote: where to stop it, and what it said
before.

A small model at temperature 0 that writes the same record twice goes on writing it until
``max_tokens`` (SmolLM2-135M wrote one spell record nine times over, then again to the
bound): minutes of generation on a laptop's CPU, and an answer cut at the bound, asked
again and cut again, which fails the lane. ``RepeatWatch`` reads an answer as it streams
in and says when an element of a ``records`` array (the one array every answer holds,
``{"records": [...]}``, or each member's in a combined answer) equals one before it in
the same array; ``closed`` is then the answer as it stood before the repeat, its open
arrays and objects closed: the records the model wrote whole, each once, and nothing
else. No text is added but the closing brackets, and no record is changed.

Elements are compared as JSON values (``{"a": 1, "b": 2}`` equals ``{"b":2,"a":1}``);
only objects and arrays are compared (a repeated string or number is not a record).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from streamer.extraction.responses import LENIENT

WATCHED = "records"  # the member whose array holds records


@dataclass
class _Frame:
    """An open array or object of the answer."""

    opener: str  # "[" or "{"
    watched: bool = False  # an array that is a ``records`` member's value
    seen: set[bytes] = field(default_factory=set)  # its elements, canonical
    element_start: int | None = None  # where the element being read began
    elements_end: int | None = None  # where its last element read ended


def _canonical(text: str) -> bytes:
    try:
        value: Any = LENIENT.decode(text)
    except ValueError:
        return text.encode()
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


class RepeatWatch:
    """Fed an answer's text piece by piece (``feed``); ``repeated`` once an element of a
    ``records`` array equals an earlier one of the same array. Reads each character once."""

    def __init__(self) -> None:
        self._text = ""
        self._stack: list[_Frame] = []
        self._in_string = False
        self._escaped = False
        self._string_start = 0
        self._last_string: str | None = None
        self._key: str | None = None  # the member whose value comes next
        self._cut: int | None = None
        self._closers = ""

    @property
    def repeated(self) -> bool:
        return self._cut is not None

    def feed(self, piece: str) -> bool:
        """Reads ``piece``; whether the answer has now repeated a record (nothing more is
        read once it has)."""
        if self._cut is not None:
            return True
        start = len(self._text)
        self._text += piece  # an answer is tens of kilobytes at most
        text = self._text
        for offset, char in enumerate(piece):
            index = start + offset
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == '"':
                    self._in_string = False
                    self._last_string = text[self._string_start : index + 1]
                continue
            if char == '"':
                self._in_string = True
                self._string_start = index
                self._begin_element(index)
            elif char == ":":
                self._key = self._decoded_key()
            elif char in "[{":
                self._begin_element(index)
                watched = char == "[" and self._key == WATCHED and self._in_object()
                self._stack.append(_Frame(char, watched))
                self._key = None
            elif char in "]}":
                if not self._stack:
                    continue
                self._stack.pop()
                if self._end_element(text, index + 1):
                    return True
            elif char == ",":
                self._key = None
                if self._stack and self._stack[-1].opener == "[":
                    frame = self._stack[-1]
                    frame.element_start = None
                    frame.elements_end = index  # the element before the comma ends here
            elif not char.isspace():
                self._begin_element(index)
        return False

    def closed(self) -> str:
        """The answer up to the end of the last record before the repeat, every array and
        object then open closed (only once ``repeated``)."""
        if self._cut is None:
            raise ValueError("the answer has not repeated a record")
        return self._text[: self._cut] + self._closers

    def _in_object(self) -> bool:
        return bool(self._stack) and self._stack[-1].opener == "{"

    def _decoded_key(self) -> str | None:
        if self._last_string is None or not self._in_object():
            return None
        try:
            key = LENIENT.decode(self._last_string)
        except ValueError:
            return None
        return key if type(key) is str else None

    def _begin_element(self, index: int) -> None:
        if self._stack and self._stack[-1].opener == "[":
            frame = self._stack[-1]
            if frame.element_start is None:
                frame.element_start = index

    def _end_element(self, text: str, end: int) -> bool:
        """An array or object closed at ``end``: if it was an element of a watched array,
        compare it with that array's elements before it."""
        if not self._stack or self._stack[-1].opener != "[":
            return False
        frame = self._stack[-1]
        start = frame.element_start
        frame.element_start = None
        if not frame.watched or start is None:
            return False
        canonical = _canonical(text[start:end])
        if canonical in frame.seen:
            self._cut = frame.elements_end if frame.elements_end is not None else start
            self._closers = "".join("]" if f.opener == "[" else "}" for f in reversed(self._stack))
            return True
        frame.seen.add(canonical)
        frame.elements_end = end
        return False

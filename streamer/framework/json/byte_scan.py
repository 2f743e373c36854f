"""JSON read as bytes, before any parser builds it: nesting depth, where an array's items
end, and duplicate members. The byte half of the streaming-JSON layer that the source
reader, the importers, validation and the report share (``json.events`` is the event
half, and says who uses what, and why they differ).

``NestingScan`` follows a JSON text fed one buffer at a time (strings may span buffers)
and knows, after each buffer, the nesting depth after every bracket that is not inside a
string. It refuses a text nested deeper than ``MAX_NESTING`` levels as soon as a buffer
holds the bracket that goes too deep, so no parser is ever handed it: parsers that build
per-level prefixes (ijson) or recurse (``json``, msgspec) take time or memory that grows
with the square of the depth, or fail with ``RecursionError``. Its work is a few C-level
passes a buffer (``bytes.replace``, ``translate``, one regular expression over the
brackets and quotes only), linear in the input.

Duplicate member names (RFC 7493, I-JSON: a parser may keep either value) are found
without a second parse in the common case: in valid JSON every member name and every
string value is one string, so a text whose parsed value has fewer strings than the text
has string literals repeated a member (the parser dropped the repeated member and its
value). ``string_literals`` counts them in C; ``first_duplicate`` locates the duplicate,
with its JSON path, only when the counts disagree. The parsed side is counted as its
reader can do it most cheaply: ``parsed_strings`` walks a small value (``check_unique``:
lane outputs), the importers re-encode a run of items and count that in C, and the source
reader compares sizes with the canonical lines it makes anyway.

``array_cut`` finds, in a buffer fed to ``NestingScan``, where the items of an array end
(``first_at`` and ``last_at`` read the profile): the exact cut of ``json.item_runs.ItemRuns``,
with which the source reader (``units``), the importers (``TURNS``, ``segments``) and
validation decode the complete items of each buffer at once.
``array_opening`` finds where an array at a given depth opens: the importers' top-level
arrays (``json_items``), and the units arrays of the evidence document (``json.events.stream``).
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import InputError

MAX_NESTING = 32

_NEUTRAL_PAIR = b"\x00\x00"
_NOT_STRUCTURAL = bytes(sorted(set(range(256)) - set(b'"[]{}')))
_DELTA = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_QUOTED = re.compile(rb'"[^"]*"')
_STRUCTURAL = re.compile(rb'["\[\]{}]')
# From outside a string: whole strings and other bytes, then one bracket (atomic: no
# backtracking; the text is read backwards, where a string is a string too).
_TO_BRACKET = re.compile(rb'(?:"[^"]*+"|[^"\[\]{}]++)*+[\[\]{}]')


class NestingError(InputError):
    """The JSON text is nested deeper than the bound."""


def neutralize_escapes(data: bytes) -> bytes:
    """``data`` with every escaped backslash and escaped quote replaced by two NUL bytes
    (the same length: positions are kept). What remains of a string's escapes cannot be
    a quote, so every ``"`` left opens or closes a string. ``data`` must not start in
    the middle of an escape."""
    if b"\\" not in data:
        return data
    return data.replace(b"\\\\", _NEUTRAL_PAIR).replace(b'\\"', _NEUTRAL_PAIR)


def string_literals(data: bytes) -> int:
    """The number of strings (member names and values) written in the JSON text ``data``,
    which must start and end outside a string."""
    quotes = data.count(b'"')
    if quotes and b"\\" in data:  # (one byte: found at memchr's speed)
        quotes -= data.replace(b"\\\\", _NEUTRAL_PAIR).count(b'\\"')
    return quotes // 2


def parsed_strings(value: Any) -> int:
    """The number of member names and string values in a parsed JSON value."""
    count = 0
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            count += 1
        elif kind is dict:
            count += len(item)
            extend(item.values())
        elif kind is list:
            extend(item)
    return count


class _Duplicated(dict[str, Any]):
    duplicate = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    marked = _Duplicated(obj)
    for name, _ in pairs:
        if name in seen:
            marked.duplicate = name
            break
        seen.add(name)
    return marked


def member_path(path: str, name: str) -> str:
    """``$.a`` for a plain name, ``$["a b"]`` for any other (quoted and capped)."""
    return (
        f"{path}.{name}" if name.isidentifier() and len(name) <= 64 else f"{path}[{quoted(name)}]"
    )


def first_duplicate(text: bytes | str, path: str = "$") -> tuple[str, str] | None:
    """``(path of the object, member name)`` of the first object, in document order, that
    repeats a member name; ``None`` when none does. ``text`` must be valid JSON (a
    ``ValueError`` otherwise)."""
    value = json.loads(text, object_pairs_hook=_pairs)
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if type(item) is _Duplicated:
            return where, item.duplicate
        if isinstance(item, dict):
            stack.extend((v, member_path(where, k)) for k, v in reversed(item.items()))
        elif type(item) is list:
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def duplicate_message(where: str, name: str) -> str:
    """The one message of a repeated member name."""
    return f"{where}: member {quoted(name)} appears twice (member names must be unique)"


def check_unique(data: bytes, value: Any, where: str, error: type[InputError]) -> None:
    """Raise ``error`` naming the JSON path of a repeated member name of ``data``, the
    JSON text that parsed as ``value`` (any parser: the check does not depend on which
    value it kept)."""
    if string_literals(data) == parsed_strings(value):
        return
    try:
        found = first_duplicate(data)
    except (ValueError, RecursionError):  # nested too deeply for the locating parse
        found = None
    if found is None:
        raise error(f"{where}: a member name appears twice (member names must be unique)")
    raise error(f"{where}: {duplicate_message(*found)}")


class NestingScan:
    """The state of a JSON text between buffers: nesting depth and whether a string (and
    an escape in it) is open.

    ``feed(data)`` returns ``data`` with its escapes neutralized (see
    ``neutralize_escapes``) and the profile: the depth before the buffer, then the depth
    after each bracket outside strings, in order. It raises ``NestingError`` when the
    depth would exceed ``limit``.
    """

    def __init__(self, depth: int = 0, limit: int = MAX_NESTING) -> None:
        self.depth = depth
        self.limit = limit
        self.in_string = False
        self._escape = False  # the buffer ended on the backslash of an escape

    def __copy__(self) -> NestingScan:
        twin = NestingScan.__new__(NestingScan)
        twin.__dict__.update(self.__dict__)
        return twin

    def feed(self, data: bytes) -> tuple[bytes, list[int]]:
        if not data:
            return data, [self.depth]
        if self._escape:
            data = b"\x00" + data[1:]  # the escaped character
        data = neutralize_escapes(data)
        skeleton = data.translate(None, _NOT_STRUCTURAL)
        if self.in_string:
            close = skeleton.find(b'"')
            if close < 0:
                self._escape = data.endswith(b"\\")
                return data, [self.depth]
            skeleton = skeleton[close + 1 :]
        # adjacent quotes are a string without brackets, or two strings with nothing
        # between them: removed (in C) before the expression removes what is left
        skeleton = _QUOTED.sub(b"", skeleton.replace(b'""', b""))
        opened = skeleton.find(b'"')
        self.in_string = opened >= 0
        if self.in_string:
            skeleton = skeleton[:opened]
        self._escape = self.in_string and data.endswith(b"\\")
        profile = list(accumulate(array("b", skeleton.translate(_DELTA)), initial=self.depth))
        if len(profile) > 1 and max(profile) > self.limit:
            raise NestingError(f"nested more than {self.limit} levels deep")
        self.depth = profile[-1]
        return data, profile


def bracket_position(neutral: bytes, in_string_at_end: bool, from_end: int) -> int:
    """The index in ``neutral`` (a buffer as ``NestingScan.feed`` returned it) of the
    ``from_end``-th bracket outside strings counted from the buffer's end (1: the last).
    The walk is backwards from the end over a reversed tail of the buffer, 4 KiB first,
    longer only when the bracket is not in it, so it costs what follows the bracket: one
    match of ``_TO_BRACKET`` a bracket, whatever the strings between them. Matches are
    taken one after the other from where the last ended (a match that fails there ends
    the tail read: a string cut by the tail's start, or no bracket left)."""
    size = 1 << 12
    while True:
        whole = size >= len(neutral)
        reverse = neutral[::-1] if whole else neutral[: -size - 1 : -1]
        position = reverse.find(b'"') + 1 if in_string_at_end else 0  # after its opening
        if position or not in_string_at_end:
            count = 0
            while found := _TO_BRACKET.match(reverse, position):
                position = found.end()
                count += 1
                if count == from_end:
                    return len(neutral) - position
        if whole:
            raise ValueError("no such bracket")  # pragma: no cover - the profile counted it
        size <<= 2


def first_at(profile: list[int], depth: int) -> int | None:
    """The first index after 0 at which ``profile`` (``NestingScan.feed``) holds
    ``depth``: the first bracket after which the text is at that depth."""
    try:
        return profile.index(depth, 1)
    except ValueError:
        return None


def last_at(profile: list[int], depth: int) -> int | None:
    """The last index after 0 at which ``profile`` holds ``depth``."""
    try:
        return len(profile) - 1 - profile[:0:-1].index(depth)
    except ValueError:
        return None


def array_cut(neutral: bytes, profile: list[int], in_string_at_end: bool) -> tuple[int, int]:
    """Where a buffer cuts an array that is a member of the top-level object (its items at
    depth 2; ``neutral`` and ``profile`` from ``NestingScan.feed``): ``(end, -1)``, the
    index of the ``]`` (or wrong ``}``) that closes the array, when it closes in this
    buffer; else ``(-1, last)``, the index of the last bracket that ends an item (-1:
    no item ends in this buffer)."""
    brackets = len(profile) - 1
    end = first_at(profile, 1)
    if end is not None:
        return bracket_position(neutral, in_string_at_end, brackets - end + 1), -1
    last = last_at(profile, 2)
    if last is None:
        return -1, -1
    return -1, bracket_position(neutral, in_string_at_end, brackets - last + 1)


def array_opening(neutral: bytes, in_string: bool, depth: int, level: int = 1) -> int:
    """The index in ``neutral`` (a buffer as ``NestingScan.feed`` gave it, starting at
    ``depth``, inside a string or not) of the first ``[`` that opens an array at nesting
    depth ``level`` (1: a member of the top-level object); -1 when none does."""
    inside = in_string
    for match in _STRUCTURAL.finditer(neutral):
        char = neutral[match.start()]
        if char == 0x22:  # a quote
            inside = not inside
        elif not inside:
            if char == 0x5B or char == 0x7B:  # [ or {
                if depth == level and char == 0x5B:
                    return match.start()
                depth += 1
            else:
                depth -= 1
    return -1

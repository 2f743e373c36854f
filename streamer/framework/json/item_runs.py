"""The items of one JSON array, read past the parser in runs: the streaming cut that the
importers (``importers.json_items``), the source reader (``source.json_form``) and
validation (``json.events.stream``) share.

``ItemRuns`` is the shape of ijson's ``items()``: a stream (positioned just after an
array's ``[``, found by the caller at its path), a decoder, and the runs of decoded
items, each with what the caller's fallback reads when it does not decode. A run is
cut three ways, cheapest first:

* the end first (``closing_first``, for arrays that often end in the buffer they start
  in): the run up to the first ``}]`` (or an empty array);
* the quick cut: the run up to the last item separator of a buffer (``rfind``: the
  separator that the first exact cut found, ``}``, ``,``, ``{`` and the first member name
  of the next item with their white space, or the one given);
* the exact cut: ``NestingScan`` from the last item known to end (depth 2, outside any
  string), ``array_cut`` finding the last item end, or the array's end.

A cut found without the scan may fall inside a string or an item: the run is then not a
JSON array of complete items, which the decoder refuses, so a wrong cut costs a
decoding, never a wrong item; the exact cut follows. The bytes after a quick cut are
scanned at once (a nesting error is raised before the run's items are given). A run cut
exactly that does not decode is given with ``value`` ``None``: the caller reads its
``raw`` bytes another way (a reference parser that locates the error, or ijson). Past
five quick cuts that do not decode, none is tried (the separator is found inside items).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Generic, NamedTuple, TypeVar

import ijson

from streamer.framework.json.byte_scan import MAX_NESTING, NestingScan, array_cut

T = TypeVar("T")
# decode(text, literals): the items of ``text`` (``[`` + items + ``]``), or ``None``;
# ``literals``: its string literals as the exact cut counted them, ``None`` after the
# quick cut (count them with ``json.byte_scan.string_literals`` when needed)
Decode = Callable[[bytes, int | None], T | None]

WHITE_SPACE = b" \t\r\n"
# The end of an item, the comma and the start of the next one up to its first member name:
# the separator the quick cut looks for (``rfind``), learned at the first exact cut.
_SEPARATOR = re.compile(rb'\}[ \t\r\n]*,[ \t\r\n]*\{[ \t\r\n]*"[^"\\]{1,64}"')
_EMPTY = re.compile(rb"[ \t\r\n]*\]")
_QUICK_FAILURES = 4  # past this many failed quick cuts, none is tried


class RunError(ijson.JSONError):  # type: ignore[misc]
    """Items without a separator between them, or a separator without an item."""


class Run(NamedTuple, Generic[T]):
    """Complete items of the array, in order: ``value`` as ``decode`` gave it (``None``:
    it did not decode); ``raw``, their bytes with the white space and (unless ``first``)
    the separator before them; ``closer``: ``None`` when items may follow, else what
    follows ``raw``: ``b"]"``, ``b"}"`` (a brace closes the array: not JSON), or ``b""``
    (the input ends inside the array: ``raw`` is what is left, maybe not items)."""

    value: T | None
    raw: bytes
    first: bool
    closer: bytes | None


def after_separator(raw: bytes, first: bool) -> bytes:
    """``raw`` without the white space and (unless ``first``) the separator before its
    items; ``RunError`` when a separator is missing."""
    body = raw.lstrip(WHITE_SPACE)
    if first or not body:
        return body
    if body[:1] != b",":
        raise RunError("items without a separator")
    return body[1:]


def array_text(raw: bytes, first: bool) -> bytes:
    """The items of ``raw`` (a run) as one JSON array text; ``RunError`` when a separator
    is missing or has no item after it."""
    body = after_separator(raw, first)
    if not first and not body.strip(WHITE_SPACE):
        raise RunError("a separator without an item")
    return b"[" + body + b"]"


class ItemRuns(Generic[T]):
    """The runs of the items of one array, read with ``read`` after ``held`` (the bytes
    read past the array's ``[``), decoded by ``decode``; ``separator``: the quick cut's
    (``None``: learned at the first exact cut; ``b""``: no quick cut); ``limit``: the
    nesting the scan accepts; ``bound``: past so many bytes without an item end, what is
    held is given as a run that does not decode. After the last run, ``rest`` holds what
    was read past the items, from the byte that closes the array on. A caller that stops
    at a run that does not decode takes ``held()``: what was read after that run."""

    __slots__ = (
        "_at",
        "_bound",
        "_closing_first",
        "_data",
        "_decode",
        "_failures",
        "_first",
        "_key",
        "_learn",
        "_limit",
        "_pending",
        "_quick_on",
        "_quotes",
        "_read",
        "_scan",
        "after",
    )

    def __init__(
        self,
        read: Callable[[], bytes],
        held: bytes,
        decode: Decode[T],
        *,
        start: int = 0,
        separator: bytes | None = None,
        limit: int = MAX_NESTING,
        bound: int | None = None,
        closing_first: bool = False,
    ) -> None:
        self._read = read
        self._data, self._at = held, start  # read, not yet scanned: from ``_at`` on
        self._decode = decode
        self._key = separator or b""  # the quick cut's separator (b"": none)
        self._learn = separator is None
        self._quick_on = True  # no quick cut failed since the last exact cut
        self._failures = 0  # quick cuts that did not decode
        self._limit = limit
        self._bound = bound  # bytes held without an item end before giving up (None: any)
        self._closing_first = closing_first
        self._scan = NestingScan(depth=2, limit=limit)
        self._pending: list[bytes] = []  # scanned bytes after the last item end
        self._quotes = 0  # the quotes of ``_pending`` that delimit strings
        self._first = True  # no run given yet
        self.after: tuple[bytes, int] = (b"", 0)  # the rest: a buffer and where it begins

    @property
    def rest(self) -> bytes:
        """What was read past the items, from the byte that closes the array on."""
        buffer, start = self.after
        return buffer[start:]

    def held(self) -> bytes:
        """What was read after the last run given, not yet cut."""
        return b"".join((*self._pending, self._data[self._at :]))

    def __iter__(self) -> Iterator[Run[T]]:
        while True:
            data, at = self._data, self._at
            if at >= len(data):
                data, at = self._data, self._at = self._read(), 0
                if not data:  # the input ends inside the array
                    yield self._run(None, self.held(), b"")
                    return
            if self._closing_first and len(self._pending) < 2:
                final = self._closing(data, at)
                if final is not None:
                    yield from final
                    return
            if at:
                data, self._at = data[at:], 0
                self._data = data
            quick = self._quick(data)
            if quick is None:
                neutral, profile = self._scan.feed(data)
            else:
                run, neutral, profile = quick
                yield run
                data = self._data
            end, position = array_cut(neutral, profile, self._scan.in_string)
            if end >= 0:  # the array ends in this buffer
                yield from self._final(data, end, neutral.count(b'"', 0, end))
                return
            self._data = b""
            if position >= 0:
                yield self._exact(data, position, neutral)
                continue
            self._pending.append(data)  # no item ends in this buffer
            self._quotes += neutral.count(b'"')
            if self._bound is not None and sum(map(len, self._pending)) > self._bound:
                yield self._run(None, self.held(), None)
                return

    def _run(self, value: T | None, raw: bytes, closer: bytes | None) -> Run[T]:
        """A run given: what follows it is no longer the first item."""
        run = Run(value, raw, self._first, closer)
        self._first = False
        self._pending, self._quotes = [], 0
        return run

    def _tentative(self, raw: bytes) -> T | None:
        """What ``decode`` gives for a run cut without the scan (``None`` also when a
        separator is missing)."""
        try:
            text = array_text(raw, self._first)
        except RunError:
            return None
        return self._decode(text, None)

    def _closing(self, data: bytes, at: int) -> list[Run[T]] | None:
        """The last run, when the array ends at the first ``}]`` of ``data`` from ``at``
        (or is empty) and it decodes; else ``None``."""
        if self._first and not self._pending:
            empty = _EMPTY.match(data, at)
            if empty is not None:
                self.after = (data, empty.end() - 1)
                return []
        end = data.find(b"}]", at) + 1
        if not end:
            return None
        raw = b"".join((*self._pending, data[at:end])) if self._pending else data[at:end]
        value = self._tentative(raw)
        if value is None:
            return None
        self.after = (data, end)
        return [self._run(value, raw, b"]")]

    def _quick(self, data: bytes) -> tuple[Run[T], bytes, list[int]] | None:
        """The run up to the last separator of ``data``, if the quick cut is on, finds one
        and the run decodes; with what follows it (left in ``_data``) scanned."""
        if not (self._key and self._quick_on) or len(self._pending) > 1:
            return None
        cut = data.rfind(self._key) + 1
        if not cut:
            return None
        raw = b"".join((*self._pending, data[:cut]))
        value = self._tentative(raw)
        if value is None:
            self._quick_on = False
            self._failures += 1
            if self._failures > _QUICK_FAILURES:
                self._key, self._learn = b"", False
            return None
        self._scan = NestingScan(depth=2, limit=self._limit)
        self._data = data[cut:]
        neutral, profile = self._scan.feed(self._data)  # raises before the run is given
        return self._run(value, raw, None), neutral, profile

    def _exact(self, data: bytes, position: int, neutral: bytes) -> Run[T]:
        """The run up to the item end at ``position`` in ``data``, found by the scan."""
        self._quick_on = True
        if self._learn and not self._key:
            after = _SEPARATOR.match(data, position)
            self._key = b"" if after is None else after.group()
        raw = b"".join((*self._pending, data[: position + 1]))
        literals = (self._quotes + neutral.count(b'"', 0, position + 1)) // 2
        run = self._run(self._decode(array_text(raw, self._first), literals), raw, None)
        self._pending = [data[position + 1 :]]
        self._quotes = neutral.count(b'"', position + 1)
        return run

    def _final(self, data: bytes, end: int, quotes: int) -> Iterator[Run[T]]:
        """The last run: up to ``data[end]``, the byte that closes the array (``rest``
        from it on); none when only white space is left."""
        raw = b"".join((*self._pending, data[:end]))
        self.after = (data, end)
        self._data, self._at, self._pending = data, end, []
        if not raw.strip(WHITE_SPACE):
            return
        literals = (self._quotes + quotes) // 2
        value = self._decode(array_text(raw, self._first), literals)
        yield self._run(value, raw, data[end : end + 1])

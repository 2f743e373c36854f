"""Large JSON documents read as ijson events: the streaming-JSON layer's event half.

streamer reads four kinds of large JSON, each with a different duty, so each reads it its
own way; what they have in common is here and in ``framework.json_bytes`` (bytes before a
parser sees them: nesting depth, where an array's items end, repeated member names):

* the source reader (``framework.source``) parses units with msgspec a buffer at a time,
  cut by ``json_bytes`` (``NestingScan``, ``array_cut``, ``first_at``/``last_at``), and
  counts strings to refuse repeated members (``units.has_duplicate_members``: it compares
  sizes with the canonical lines it must make anyway, cheaper than a second count);
* the importers of JSON formats (``importers.json_items``) cut the top-level arrays the
  same way, and check the rest as events with ijson, refusing repeated member names with
  ``MemberNames``; an error is located by a reference pass over the events, which quotes
  nothing (ijson's own messages quote the input);
* validation (``framework.json_events.stream``) checks a whole published document in one
  pass of events, every item built in C, against its schema: it must see every event,
  but for the items of one array (the evidence document's units), which it may take in
  runs decoded at once, cut without ijson (``runs``; a run that does not decode is read
  by ijson, so the events and errors are those of the plain reading);
* the report (``report.evidence_stream``) reads a document that validation has accepted,
  so it checks nothing: ``first_item`` for its header, and lock-step ``ijson.items`` passes
  for its contexts, which keeps one unit in memory however the members are ordered.

``stream(file, [(PREFIX, EVENTS)])`" parses ``file`` a block at a time with
ijson (push mode: each block's events land in a list, never one Python call per event).
Every event is fed to ijson's item builder for ``PREFIX`` (an array's items, e.g. the
units of every context), and the events that are not inside an item are kept for the
caller. What the caller sees, in document order:

* ``(prefix, event, value)`` for everything outside the items (ijson's ``parse`` events),
* ``(PREFIX, ITEM, value)`` for each complete item, where its last event was.

``inside`` is the set of ``(prefix, event)`` pairs a well-formed item is made of (from its
schema: ``item_events``); they are dropped by one C-level filter over each block, so
the caller's loop runs about once per item, not once per event. Events of a malformed
item that fall outside that set are dropped by the caller's loop instead. Memory is one
block's events and the items completed in it.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

import ijson

from streamer.framework.json_bytes import (
    NestingScan,
    array_opening,
    duplicate_message,
    member_path,
    neutralize_escapes,
)

ITEM = "item"
BLOCK_SIZE = 1 << 16
_ENDS = ("end_map", "end_array", "string", "number", "boolean", "null")
_backend = ijson.get_backend(ijson.backend)
_pair = operator.itemgetter(0, 1)

JsonError = ijson.JSONError
Event = tuple[str, str, Any]


def item_events(
    prefix: str, schema: Mapping[str, Any], defs: Mapping[str, Any]
) -> frozenset[tuple[str, str]]:
    """The ``(prefix, event)`` pairs of a well-formed item at ``prefix`` described by the
    JSON Schema ``schema`` (objects, arrays, strings, integers; local ``$ref`` into ``defs``),
    except the item's own last event (which marks where it ends)."""
    pairs: set[tuple[str, str]] = set()

    def walk(at: str, node: Mapping[str, Any], top: bool) -> None:
        if "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        kind = node.get("type")
        if kind == "object":
            pairs.update({(at, "start_map"), (at, "map_key")})
            if not top:
                pairs.add((at, "end_map"))
            for name, member in node.get("properties", {}).items():
                walk(f"{at}.{name}", member, False)
        elif kind == "array":
            pairs.update({(at, "start_array")} if top else {(at, "start_array"), (at, "end_array")})
            if "items" in node:
                walk(f"{at}.item", node["items"], False)
        elif not top:
            pairs.add((at, "number" if kind == "integer" else str(kind)))

    walk(prefix, schema, True)
    return frozenset(pairs)


def stream(
    file: IO[bytes],
    items: Sequence[tuple[str, frozenset[tuple[str, str]]]],
    *,
    block_size: int | None = None,
    runs: tuple[str, Callable[[bytes], list[Any] | None]] | None = None,
) -> Iterator[Event]:
    """The events of ``file`` outside the items of ``items`` (``(prefix, inside)`` pairs,
    the largest first: the events left by one builder are given to the next), and each
    item as ``(prefix, ITEM, value)``. Raises ``JsonError`` unless ``file`` is one valid
    JSON document.

    With ``runs``, ``(ARRAY, decode)``: the items of every array at ``ARRAY`` (a prefix of
    object members and ``item``s, e.g. ``contexts.item.units``) are cut into runs as they
    are read (``json_bytes.ItemRuns``) and never reach ijson: ``decode`` gets each run as a
    JSON array text and gives its items, and they are given as ``(ARRAY.item, RUN, items)``.
    When ``decode`` gives ``None`` (or the run is not sound JSON), that run and the rest of
    that array go to ijson as without ``runs``: the events are those of the plain reading,
    and so are the errors."""
    size = BLOCK_SIZE if block_size is None else block_size
    events = ijson.sendable_list()
    parser = ijson.parse_coro(events, use_float=True)
    stages = []
    for prefix, inside in items:
        built = ijson.sendable_list()
        keep = dict.fromkeys(inside, False).get  # (prefix, event) -> False inside an item
        stages.append((_backend.items_basecoro(built, prefix).send, keep, built))
    outputs = {prefix: built for (prefix, _), (_, _, built) in zip(items, stages, strict=True)}
    leaks = tuple(prefix + "." for prefix, _ in items)
    compress, repeat = itertools.compress, itertools.repeat
    drain: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend
    cutting = _Cutting(file, size, *runs) if runs is not None else None
    while True:
        data = file.read(size) if cutting is None else cutting.read()
        if data:
            parser.send(data)
        else:
            parser.close()
        kept: list[Event] = events
        for build, keep, _ in stages:
            drain(map(build, kept))
            kept = list(compress(kept, map(keep, map(_pair, kept), repeat(True))))
        made = {prefix: iter(built) for prefix, built in outputs.items()}
        for event in kept:
            prefix = event[0]
            found = made.get(prefix)
            if found is not None:
                if event[1] in _ENDS:
                    yield prefix, ITEM, next(found)
            elif not prefix.startswith(leaks):
                yield event
        if cutting is not None and cutting.at_array and events and events[-1][:2] == cutting.opens:
            yield from cutting.runs()
        del events[:]
        for built in outputs.values():
            del built[:]
        if not data:
            return


RUN = "run"
PIECE = 1 << 11  # bytes given to ijson at once after a cut
BOUND = 1 << 20  # bytes of an array's items held without a mark of their end
_CLOSING = re.compile(rb"[ \t\r\n]*\]")
_WHITE_SPACE = b" \t\r\n"
_NO_LIMIT = 1 << 40  # validation reads any nesting; the schema names what is too deep


class _Cutting:
    """The input of ``stream`` with ``runs``: each block given to ijson ends at the ``[``
    of an array at ``ARRAY``'s depth, if one opens in it; when ijson's last event says it
    is one at ``ARRAY``, ``runs`` reads its items past ijson."""

    def __init__(
        self, file: IO[bytes], size: int, array: str, decode: Callable[[bytes], list[Any] | None]
    ) -> None:
        self._file = file
        self._size = size
        self._level = len(array.split("."))  # the depth at which its "[" opens
        self._decode = decode
        self._item = f"{array}.{ITEM}"
        self.opens = (array, "start_array")
        self._scan = NestingScan(limit=_NO_LIMIT)
        self._held = b""  # read, not yet given to ijson: from ``_at`` on
        self._at = 0
        self.at_array = False  # the last block ends with a "[" at that depth

    def read(self) -> bytes:
        """The next block for ijson: up to ``PIECE`` bytes of what is held (so that the
        bytes after a cut are not scanned again and again), or a block of the file."""
        held, at = self._held, self._at
        if at < len(held):
            data = held[at : at + PIECE]
        else:
            data = held = self._held = self._file.read(self._size)
            at = 0
        self.at_array = False
        scan = self._scan
        in_string, depth = scan.in_string, scan.depth  # before ``data``
        neutral, profile = scan.feed(data)
        level = self._level
        cut = -1
        if min(profile) <= level < max(profile):  # a bracket may open at that depth
            cut = array_opening(neutral, in_string, depth, level)
        if cut < 0:
            self._at = at + len(data)
            return data
        # just after that "[", outside strings: what feeding ``data[: cut + 1]`` leaves
        self._scan = NestingScan(depth=level + 1, limit=_NO_LIMIT)
        self._at = at + cut + 1
        self.at_array = True
        return data[: cut + 1]

    def _rest(self) -> bytes:
        """What is held, from ``_at`` on (released)."""
        rest = self._held[self._at :]
        self._held, self._at = b"", 0
        return rest

    def runs(self) -> Iterator[Event]:
        """The items of the array just opened, a run at a time, up to its ``]`` (or up to
        a run that does not decode: that run and the rest of the array go to ijson).

        A run ends where the bytes say an item ends, ``},{`` outside strings (and the
        array, at the first ``}]`` outside strings), without a scan of the items' nesting:
        a cut inside an item leaves a run that is not a JSON array, which no decoder
        accepts, so a run that decodes is exactly complete items. Items that are not
        objects, or white space between them, leave no such mark: past ``BOUND`` bytes
        without one, ijson reads the array."""
        self.at_array = False
        buffer, start = self._held, self._at  # the array's bytes begin at buffer[start]
        self._held, self._at = b"", 0
        first = True  # no run decoded yet
        while True:
            empty = _CLOSING.match(buffer, start) if first else None
            items: list[Any] | None = []
            if empty is not None:
                end = empty.end() - 1
            else:
                end, items = self._run(buffer, start, first, _closing, last=False)
            if end >= 0:
                if items is None:
                    break
                if items:
                    yield self._item, RUN, items
                self._held, self._at = buffer, end
                return
            cut, items = self._run(buffer, start, first, _last_cut, last=True)
            if cut >= 0:
                if items is None:
                    break
                yield self._item, RUN, items
                first, start = False, cut
            elif len(buffer) - start > BOUND:
                break
            data = self._file.read(self._size)
            if not data:
                break
            buffer, start = buffer[start:] + data, 0
        rest = buffer[start:]
        self._give_back(rest if first else _after_separator(rest), b"")

    def _run(
        self,
        buffer: bytes,
        start: int,
        first: bool,
        outside: Callable[[bytes, int], int],
        *,
        last: bool,
    ) -> tuple[int, list[Any] | None]:
        """``(end, items)`` of the run from ``start`` up to the ``}`` of the first ``}]``
        (the last ``},{`` when ``last``); ``end`` just after that ``}`` (-1: none); items
        ``None`` when the run does not decode. The mark found first is tried at once; only
        when that run does not decode is the mark found outside strings (``outside``:
        ``_closing``, ``_last_cut``)."""
        found = buffer.rfind(b"},{", start) if last else buffer.find(b"}]", start)
        if found < 0:
            return -1, None
        end = found + 1
        items = self._items(buffer[start:end], first)
        if items is None:
            exact = outside(buffer, start)
            if exact < 0:
                return -1, None
            if exact != end:
                end = exact
                items = self._items(buffer[start:end], first)
        return end, items

    def _items(self, run: bytes, first: bool) -> list[Any] | None:
        """The items of ``run`` (complete items, after a separator unless ``first``), or
        ``None`` when it does not decode."""
        body = run.lstrip(_WHITE_SPACE)
        if not body:
            return []
        if not first:
            body = _after_separator(body)
            if not body.strip(_WHITE_SPACE):
                raise JsonError("a separator without an item")
        return self._decode(b"[" + body + b"]") or None

    def _give_back(self, run: bytes, rest: bytes) -> None:
        """``run`` and ``rest`` go to ijson; they start between the array's items, where
        ijson has read only the ``[`` (a separator before them is not given)."""
        self._held = run + rest
        self._scan = NestingScan(depth=self._level + 1, limit=_NO_LIMIT)


def _quotes(data: bytes) -> int:
    """The quotes of ``data`` that open or close a string (``data`` starts outside an
    escape)."""
    return neutralize_escapes(data).count(b'"')


def _closing(buffer: bytes, start: int) -> int:
    """The index of the ``]`` of the first ``}]`` after ``start`` (outside strings, where
    ``buffer[start]`` is) that is outside strings; -1."""
    quotes, at = 0, start
    found = buffer.find(b"}]", start)
    while found >= 0:
        quotes += _quotes(buffer[at:found])
        at = found
        if quotes % 2 == 0:
            return found + 1
        found = buffer.find(b"}]", found + 1)
    return -1


def _last_cut(buffer: bytes, start: int) -> int:
    """The index after the ``}`` of the last ``},{`` after ``start`` (outside strings,
    where ``buffer[start]`` is) that is outside strings; -1."""
    found = buffer.rfind(b"},{", start)
    if found < 0:
        return -1
    quotes = _quotes(buffer[start:found])
    while quotes % 2:
        before = buffer.rfind(b"},{", start, found)
        if before < 0:
            return -1
        quotes -= _quotes(buffer[before:found])
        found = before
    return found + 1


def _after_separator(text: bytes) -> bytes:
    """``text``, which follows an item, without the separator it must start with (after
    white space); ``JsonError`` when it does not."""
    body = text.lstrip(_WHITE_SPACE)
    if not body:
        return body
    if body[:1] != b",":
        raise JsonError("items without a separator")
    return body[1:]


class MemberNames:
    """The member names of each open object, followed on ijson's ``parse`` events: a
    name repeated in one object raises ``error`` (RFC 7493), with the object's path."""

    def __init__(self, error: Callable[[str], Exception]) -> None:
        self._open: list[set[str] | None] = []  # an object's names; None: an array
        self._error = error

    @property
    def depth(self) -> int:
        """The containers open (1: inside the top-level value)."""
        return len(self._open)

    def event(self, prefix: str, event: str, value: Any) -> None:
        if event == "map_key":
            seen = self._open[-1]
            assert seen is not None
            if value in seen:
                raise self._error(duplicate_message(prefix_path(prefix), value))
            seen.add(value)
        elif event == "start_map":
            self._open.append(set())
        elif event == "start_array":
            self._open.append(None)
        elif event in ("end_map", "end_array"):
            self._open.pop()


def prefix_path(prefix: str) -> str:
    """The JSON path of the value whose ijson prefix is ``prefix`` (``a.item.b``):
    array positions are not tracked, ``[*]`` stands for them."""
    path = "$"
    for part in prefix.split(".") if prefix else ():
        path = f"{path}[*]" if part == "item" else member_path(path, part)
    return path


_MISSING = object()


def first_item(file: IO[bytes], prefix: str, buffer_size: int = BLOCK_SIZE) -> Any:
    """The first value at ``prefix`` in ``file``, reading no further; ``KeyError`` when
    the document has none."""
    found = next(iter(ijson.items(file, prefix, buf_size=buffer_size)), _MISSING)
    if found is _MISSING:
        raise KeyError(prefix)
    return found

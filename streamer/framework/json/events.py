"""Large JSON documents read as ijson events: the streaming-JSON layer's event half.

streamer reads four kinds of large JSON, each with a different duty, so each reads it its
own way; what they have in common is here, in ``framework.json.byte_scan`` (bytes before a
parser sees them: nesting depth, where an array's items end, repeated member names) and in
``framework.json.item_runs`` (``ItemRuns``: the items of one array cut into runs past the
parser, each decoded at once, with the caller's fallback for a run that does not decode):

* the source reader (``framework.source``) decodes the units of ``units`` a run at a time
  with msgspec (``ItemRuns``), and counts strings to refuse repeated members
  (``units.has_duplicate_members``: it compares sizes with the canonical lines it must
  make anyway, cheaper than a second count);
* the importers of JSON formats (``importers.json_items``) cut the top-level arrays the
  same way, and check the rest as events with ijson, refusing repeated member names with
  ``MemberNames``; an error is located by a reference pass over the events, which quotes
  nothing (ijson's own messages quote the input);
* validation (``framework.json.events.stream``) checks a whole published document in one
  pass of events, every item built in C, against its schema: it must see every event,
  but for the items of one array (the evidence document's units), which it may take in
  runs decoded at once (``ItemRuns`` again; a run that does not decode is read by ijson,
  so the events and errors are those of the plain reading);
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

import functools
import itertools
import operator
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

import ijson

from streamer.framework.json.byte_scan import (
    NestingScan,
    array_opening,
    duplicate_message,
    member_path,
)
from streamer.framework.json.item_runs import ItemRuns, after_separator

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
    are read (``json.item_runs.ItemRuns``) and never reach ijson: ``decode`` gets each run as a
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
        self._read_block = functools.partial(file.read, size)
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

    def runs(self) -> Iterator[Event]:
        """The items of the array just opened, a run at a time (``json.item_runs.ItemRuns``),
        up to its ``]`` (or up to a run that does not decode: that run and the rest of
        the array go to ijson).

        A run ends at the first ``}]`` (the array's end), or at the last ``},{`` of a
        buffer, or where the nesting scan says an item ends: a cut inside an item leaves
        a run that is not a JSON array, which no decoder accepts, so a run that decodes
        is exactly complete items. Items that are not objects, or white space between
        them, leave no mark: past ``BOUND`` bytes without an item end, ijson reads the
        array."""
        self.at_array = False
        runs = ItemRuns(
            self._read_block,
            self._held,
            self._decode_run,
            start=self._at,
            separator=b"},{",
            limit=_NO_LIMIT,
            bound=BOUND,
            closing_first=True,
        )
        for run in runs:
            if run.value is None or run.closer == b"}":
                # ijson has read only the "[" and the runs given: a separator is not given
                self._held, self._at = after_separator(run.raw, run.first) + runs.held(), 0
                self._scan = NestingScan(depth=self._level + 1, limit=_NO_LIMIT)
                return
            yield self._item, RUN, run.value
        self._held, self._at = runs.after

    def _decode_run(self, text: bytes, literals: int | None) -> list[Any] | None:
        return self._decode(text) or None


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

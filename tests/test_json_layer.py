"""The streaming-JSON layer the readers share (``framework.json.byte_scan``,
``framework.json.events``): where a buffer cuts an array's items, against a brute-force
walk of the characters written here; repeated member names on ijson's events; the first
item at a prefix."""

from __future__ import annotations

import copy
import io
import itertools
import json
from collections.abc import Iterator
from typing import Annotated, Any

import ijson
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import (
    NestingScan,
    array_cut,
    array_opening,
    first_at,
    last_at,
)
from streamer.framework.json.events import (
    ITEM,
    RUN,
    MemberNames,
    first_item,
    prefix_path,
    stream,
)

leaf = st.one_of(st.integers(-5, 5), st.text('a"\\]}{[, ', max_size=4), st.none())
value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=6,
)


def brackets(text: bytes) -> Iterator[tuple[int, bytes, int]]:
    """``(index, bracket, depth after it)`` for each bracket outside strings of ``text``,
    by a walk of every character from its start (at depth 0, outside strings)."""
    depth, inside, escaped = 0, False, False
    for index in range(len(text)):
        char = text[index : index + 1]
        if inside:
            if escaped:
                escaped = False
            elif char == b"\\":
                escaped = True
            elif char == b'"':
                inside = False
            continue
        if char == b'"':
            inside = True
        elif char in (b"[", b"{", b"]", b"}"):
            depth += 1 if char in (b"[", b"{") else -1
            yield index, char, depth


def brute_force_cut(text: bytes, start: int, stop: int) -> tuple[int, int]:
    """For the characters ``start:stop`` of ``text`` (relative to ``start``), what
    ``array_cut`` must report."""
    last = -1
    for index, char, depth in brackets(text[:stop]):
        if index >= start and char in (b"]", b"}"):
            if depth == 1:
                return index - start, -1
            if depth == 2:
                last = index - start
    return -1, last


@given(items=st.lists(value, max_size=6), cuts=st.lists(st.integers(0, 200), max_size=4))
def test_array_cut_finds_what_a_walk_of_the_characters_finds(
    items: list[Any], cuts: list[int]
) -> None:
    text = json.dumps({"a": items, "b": 1}).encode()
    start = text.index(b"[") + 1  # inside the array: its items at depth 2
    bounds = sorted({start, *(min(start + c, len(text)) for c in cuts), len(text)})
    scan = NestingScan(depth=2)
    for begin, stop in itertools.pairwise(bounds):
        neutral, profile = scan.feed(text[begin:stop])
        assert array_cut(neutral, profile, scan.in_string) == brute_force_cut(text, begin, stop)
        if array_cut(neutral, profile, scan.in_string)[0] >= 0:
            break


def test_first_at_and_last_at_read_the_profile_after_its_start() -> None:
    profile = [2, 3, 2, 3, 2, 1, 2]
    assert (first_at(profile, 2), last_at(profile, 2)) == (2, 6)
    assert (first_at(profile, 1), last_at(profile, 3)) == (5, 3)
    assert first_at([2], 2) is None and last_at([2, 3], 2) is None


def events_of(text: bytes) -> list[tuple[str, str, Any]]:
    return list(ijson.parse(io.BytesIO(text)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"a": 1, "b": {"a": 1}, "a": 2}', '$: member "a" appears twice'),
        (b'{"x": [{"k": 1, "k": 2}]}', '$.x[*]: member "k" appears twice'),
        (b'{"x": {"long name": {"k": 1, "k": 2}}}', '$.x["long name"]: member "k" appears twice'),
    ],
)
def test_member_names_refuse_a_repeated_name_with_its_path(text: bytes, message: str) -> None:
    names = MemberNames(SourceError)
    with pytest.raises(SourceError) as raised:
        for event in events_of(text):
            names.event(*event)
    assert raised.value.one_line() == f"{message} (member names must be unique)"


def test_member_names_accept_a_name_repeated_in_other_objects_and_track_the_depth() -> None:
    names = MemberNames(SourceError)
    depths = []
    for event in events_of(b'{"a": [{"a": 1}, {"a": 2}], "b": {"a": []}}'):
        names.event(*event)
        depths.append(names.depth)
    assert depths == [1, 1, 2, 3, 3, 3, 2, 3, 3, 3, 2, 1, 1, 2, 2, 3, 2, 1, 0]


def test_prefix_path_marks_array_positions() -> None:
    assert prefix_path("") == "$"
    assert prefix_path("TURNS.item.NAMES") == "$.TURNS[*].NAMES"


def test_first_item_reads_the_first_value_at_a_prefix_or_says_there_is_none() -> None:
    text = b'{"window_units": 3, "lanes": ["a", "b"], "contexts": []}'
    assert first_item(io.BytesIO(text), "lanes", 4) == ["a", "b"]
    with pytest.raises(KeyError):
        first_item(io.BytesIO(text), "missing")


def brute_force_opening(text: bytes, begin: int, level: int) -> int:
    """The index (from ``begin``) of the first ``[`` at ``begin`` or after that opens an
    array at depth ``level``; -1."""
    for index, char, depth in brackets(text):
        if char == b"[" and depth == level + 1 and index >= begin:
            return index - begin
    return -1


@given(
    document=st.dictionaries(st.text("ab", max_size=2), value, max_size=4),
    begin=st.integers(0, 200),
    level=st.integers(1, 4),
)
def test_array_opening_finds_what_a_walk_of_the_characters_finds(
    document: dict[str, Any], begin: int, level: int
) -> None:
    text = json.dumps(document).encode()
    begin = min(begin, len(text))
    scan = NestingScan()
    scan.feed(text[:begin])
    neutral, _ = copy.copy(scan).feed(text[begin:])  # as a buffer starting at begin
    assert array_opening(neutral, scan.in_string, scan.depth, level) == brute_force_opening(
        text, begin, level
    )


# -- stream with runs: the events of a plain reading, whatever the bytes ----------------

PART = st.text(alphabet=st.sampled_from('a"\\]}{[,:é😀 '), max_size=5)
SMALL = st.integers(-(2**63) + 1, 2**63 - 1)  # what yajl reads
ITEM_VALUE = st.one_of(PART, SMALL, st.dictionaries(PART, st.one_of(PART, SMALL), max_size=2))
UNIT_LIKE = st.dictionaries(st.sampled_from(["id", "text", "meta"]), ITEM_VALUE, max_size=3)
ODD_ITEM = st.one_of(SMALL, PART, st.lists(SMALL, max_size=2), st.none())
BOX = st.fixed_dictionaries(
    {
        "head": PART,
        "refs": st.lists(st.fixed_dictionaries({"at": PART}), max_size=2),
        "items": st.lists(
            st.one_of(UNIT_LIKE, UNIT_LIKE, UNIT_LIKE, ODD_ITEM, st.just({"bad": [1]})),
            max_size=6,
        ),
    }
)
RUN_DOCUMENT = st.fixed_dictionaries({"n": SMALL, "boxes": st.lists(BOX, max_size=4)})
ARRAY = "boxes.item.items"
SCALAR = str | Annotated[int, msgspec.Meta(ge=-(2**63) + 1, le=2**63 - 1)]
_run_items = msgspec.json.Decoder(list[dict[str, SCALAR | dict[str, SCALAR]]]).decode


def decode_run(text: bytes) -> list[Any] | None:
    """Items that are objects of strings and integers (or of such objects); ``None`` for
    any other run (so that ijson reads it, and the rest of its array)."""
    try:
        return _run_items(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def plain_events(data: bytes, block: int, runs: bool) -> list[Any] | str:
    """The events of ``data`` with runs expanded to their items; the error's class."""
    items = [(f"{ARRAY}.item", frozenset({(f"{ARRAY}.item", "start_map")}))]
    found: list[Any] = []
    try:
        for event in stream(
            io.BytesIO(data), items, block_size=block, runs=(ARRAY, decode_run) if runs else None
        ):
            if event[1] == RUN:
                found.extend((event[0], ITEM, item) for item in event[2])
            else:
                found.append(event)
    except (ijson.JSONError, UnicodeDecodeError) as error:
        return type(error).__name__ if not isinstance(error, ijson.JSONError) else "JSONError"
    return found


@given(RUN_DOCUMENT, st.integers(1, 60), st.booleans())
def test_runs_give_the_events_of_a_plain_reading(document: Any, block: int, indent: bool) -> None:
    data = json.dumps(document, ensure_ascii=False, indent=1 if indent else None).encode()
    if not indent:
        data = data.replace(b", ", b",").replace(b": ", b":")
    with_runs = plain_events(data, block, runs=True)
    assert with_runs == plain_events(data, block, runs=False)
    assert isinstance(with_runs, list)


@given(
    RUN_DOCUMENT,
    st.integers(1, 60),
    st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(list(b'{}[],:" a1\\'))), max_size=3),
)
def test_runs_give_the_events_or_the_error_of_a_plain_reading_of_any_bytes(
    document: Any, block: int, changes: list[tuple[int, int]]
) -> None:
    data = bytearray(json.dumps(document, separators=(",", ":")).encode())
    for position, byte in changes:
        if data:
            data[position % len(data)] = byte
    assert plain_events(bytes(data), block, runs=True) == plain_events(
        bytes(data), block, runs=False
    )

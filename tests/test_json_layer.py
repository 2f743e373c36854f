"""The streaming-JSON layer the readers share (``framework.json_bytes``,
``framework.json_events``): where a buffer cuts an array's items, against a brute-force
walk of the characters written here; repeated member names on ijson's events; the first
item at a prefix."""

from __future__ import annotations

import io
import itertools
import json
from typing import Any

import ijson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.errors import SourceError
from streamer.framework.json_bytes import NestingScan, array_cut, first_at, last_at
from streamer.framework.json_events import MemberNames, first_item, prefix_path

leaf = st.one_of(st.integers(-5, 5), st.text('a"\\]}{[, ', max_size=4), st.none())
value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=6,
)


def brute_force_cut(text: bytes, start: int, stop: int) -> tuple[int, int]:
    """Walk ``text`` from its start, at depth 0 outside strings, and report for the
    characters ``start:stop`` (relative to ``start``) what ``array_cut`` must."""
    depth, inside, escaped = 0, False, False
    end, last = -1, -1
    for index in range(stop):
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
        elif char in (b"[", b"{"):
            depth += 1
        elif char in (b"]", b"}"):
            depth -= 1
            if index >= start:
                if depth == 1:
                    return index - start, -1
                if depth == 2:
                    last = index - start
    return end, last


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

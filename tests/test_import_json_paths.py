"""The fast path of the JSON importers (``json_items``: top-level arrays decoded a run at a
time by msgspec) against the reference, ijson's event stream checked event by event (the
importer as it was before the fast path): the same items, in the same order, and the
same error, whatever the document, its faults and the buffer size."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import ijson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import MAX_NESTING, NestingError
from streamer.importers import json_items


def reference_items(stream: Any, member: str) -> Iterator[tuple[int, Any]]:
    """The importer's reading before the fast path, verbatim: every event through ``_Tap``."""
    tap = json_items._Tap(member)
    index = -1
    try:
        events = tap.events(
            ijson.parse(json_items._Bounded(stream), buf_size=json_items.BUFFER_SIZE)
        )
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
            where = f"at $.{member}[{index + 1}]"
        elif tap.started:
            where = "before $." + member
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


def outcome(read: Any, data: bytes, member: str = "TURNS") -> tuple[list[Any], str | None]:
    got: list[Any] = []
    try:
        for pair in read(io.BytesIO(data), member):
            got.append(pair)
    except SourceError as error:
        return got, error.one_line()
    return got, None


# A JSON value as a tree whose objects are lists of (name, value) pairs, so that a
# member may repeat.
NAMES = st.sampled_from(["NAMES", "UTTERANCES", "NUMBER", "a", "TURNS", 'q"', "é"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.text(alphabet=st.sampled_from('ab "\\/\n\t\x01é✨😀'), max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(st.tuples(NAMES, inner), max_size=4).map(lambda pairs: ("obj", pairs)),
    ),
    max_leaves=12,
)
TOP = st.lists(
    st.tuples(
        st.sampled_from(["TURNS", "METADATA", "word_segments", "x"]),
        st.one_of(st.lists(VALUES, max_size=6), VALUES),
    ),
    max_size=4,
)


def write(value: Any, space: str) -> str:
    if isinstance(value, tuple):
        members = (f"{json.dumps(name)}:{space}{write(item, space)}" for name, item in value[1])
        return "{" + f",{space}".join(members) + "}"
    if isinstance(value, list):
        return "[" + f",{space}".join(write(item, space) for item in value) + "]"
    if isinstance(value, Decimal):
        return str(value) if value == value.to_integral_value() else f"{value:f}"
    return json.dumps(value, ensure_ascii=False)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    space = draw(st.sampled_from(["", " ", "\n  "]))
    data = write(("obj", draw(TOP)), space).encode("utf-8")
    fault = draw(st.sampled_from(["none", "none", "truncate", "byte", "delete"]))
    if fault != "none" and data:
        at = draw(st.integers(0, len(data) - 1))
        if fault == "truncate":
            data = data[:at]
        elif fault == "byte":
            byte = draw(st.sampled_from([b",", b"]", b"}", b'"', b"\\", b"\xff", b"\xc3", b"1"]))
            data = data[:at] + byte + data[at:]
        else:
            data = data[:at] + data[at + 1 :]
    return data


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([1, 2, 3, 7, 64, 1 << 16]))
@example(b'{"":[]}', 1)  # a member named "": once taken for "no array read undecoded"
def test_the_fast_path_reads_what_the_reference_reads(data: bytes, buffer: int) -> None:
    saved = json_items.BUFFER_SIZE
    json_items.BUFFER_SIZE = buffer
    try:
        assert outcome(json_items.array_items, data) == outcome(reference_items, data)
    finally:
        json_items.BUFFER_SIZE = saved


# the cut's own cases (faults between and inside items, a brace closing the array) are
# in test_json_runs_matrix.py, read by every caller
@pytest.mark.parametrize(
    "data",
    [
        b'{"TURNS": [{"a": 1}, {"a": [1, {"b": "x"}]}], "x": [[1], {"c": 2}], "TURNS2": []}',
        b'{"x": [1, 2, 3], "TURNS": ["\\u00e9", 1.50, -0, 1e400, 123456789012345678901234567890]}',
        b'{"TURNS": [{"a": 1, "a": 2}]}',
        b'{"METADATA": {"k": [{"a": 1, "a": 2}]}, "TURNS": []}',
        b'{"TURNS": [], "x": [{"a": "\xff"}]}',
        b'{"TURNS": [{"a": "\xff"}]}',
        b'{"TURNS": {"a": 1}}',
        b'[{"TURNS": []}]',
        b'{"TURNS": [[[[]]]], "TURNS": []}',
        b'{"TURNS": [01]}',
        b'{"TURNS": [1.]}',
        b'{"TURNS": ["a\tb"]}',
        b"",
    ],
)
@pytest.mark.parametrize("buffer", [1, 5, 1 << 16])
def test_edge_cases_read_as_the_reference_reads(data: bytes, buffer: int) -> None:
    saved = json_items.BUFFER_SIZE
    json_items.BUFFER_SIZE = buffer
    try:
        assert outcome(json_items.array_items, data) == outcome(reference_items, data)
    finally:
        json_items.BUFFER_SIZE = saved

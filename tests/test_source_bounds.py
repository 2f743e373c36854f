"""Hostile source documents: deep nesting, long strings and texts, string and number
errors, repeated member names. Each fails with exit status 3 and a located,
content-safe message, in time and memory linear in the input.

Resource use is asserted through limits on a subprocess (``RLIMIT_AS`` for memory,
``RLIMIT_CPU`` for time), never by timing: the limits are several times what the
linear reader needs and a small fraction of what a quadratic one would.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import MAX_NESTING, NestingScan, bracket_position
from streamer.framework.source.reader import SourceDocumentReader
from tests.support import REPO

CONFIG = REPO / "fixtures" / "import" / "streamer.yaml"
MEMORY_LIMIT = 256 << 20  # a run of `streamer chunk` needs about 150 MiB of address space
CPU_LIMIT = 20  # seconds: the linear reader needs well under one for these inputs
HEAD = b'{"document_id":"d","units":['
UNIT = b'{"unit_id":"a","kind":"k","text":"t"}'


def chunk_run(
    tmp_path: Path, data: bytes, *, memory: int = MEMORY_LIMIT, cpu: int = CPU_LIMIT
) -> tuple[int, str]:
    """``streamer chunk`` on ``data`` in a subprocess limited in memory and CPU time."""
    source = tmp_path / "source.json"
    source.write_bytes(data)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    completed = subprocess.run(
        [
            *(sys.executable, "-m", "streamer", "chunk", "--config", str(CONFIG)),
            *("--source", str(source), "--output", str(tmp_path / "chunks.jsonl")),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=limits,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    return completed.returncode, completed.stderr.decode("utf-8", "replace")


def read(data: bytes, buffer_size: int = 1 << 16) -> list[Any]:
    reader = SourceDocumentReader(io.BytesIO(data), buffer_size=buffer_size)
    units = list(reader)
    _ = reader.identity
    return units


def error_of(data: bytes, buffer_size: int = 1 << 16) -> str:
    with pytest.raises(SourceError) as caught:
        read(data, buffer_size)
    return caught.value.one_line()


# -- nesting (issue 9, item 3) ---------------------------------------------------------


@pytest.mark.parametrize("levels", [20_000, 100_000])
@pytest.mark.parametrize("where", ["unit", "after-units", "jsonl"])
def test_deep_nesting_fails_with_exit_3_in_bounded_memory(
    tmp_path: Path, levels: int, where: str
) -> None:
    deep = b"[" * levels + b"]" * levels
    if where == "unit":
        data = HEAD + b'{"unit_id":"a","kind":"k","text":' + deep + b"}]}"
    elif where == "after-units":
        data = HEAD + UNIT + b'],"x":' + deep + b"}"
    else:
        data = b'{"document_id":"d"}\n{"unit_id":"a","kind":"k","text":' + deep + b"}\n"
    status, stderr = chunk_run(tmp_path, data)
    assert status == 3, stderr
    assert stderr.startswith("streamer: error: ")
    assert "Traceback" not in stderr


def test_nesting_bound_message_names_the_place() -> None:
    deep = b"[" * 40 + b"]" * 40
    data = HEAD + UNIT + b"," + UNIT + b',{"unit_id":"b","kind":"k","text":' + deep + b"}]}"
    message = error_of(data, buffer_size=8)
    assert message.startswith(
        f"the source document is nested more than {MAX_NESTING} levels deep after $.units[1]"
    ), message
    # after units, a member whose value is an array is refused as it starts
    message = error_of(b'{"units":[' + UNIT + b'],"document_id":' + deep + b"}", buffer_size=8)
    assert message == "$.document_id must be a non-empty string"


def test_ten_thousand_levels_after_units_is_invalid_input() -> None:
    deep = b"{" + b'"a":[' * 10_000 + b"]" * 10_000 + b"}"
    assert "nested more than" in error_of(HEAD + UNIT + b'],"x":' + deep + b"}")


def test_nesting_up_to_the_bound_reaches_the_contract_check() -> None:
    depth = MAX_NESTING - 3  # document, units, unit
    nested = b"[" * depth + b"]" * depth
    data = HEAD + b'{"unit_id":"a","kind":"k","text":' + nested + b"}]}"
    assert error_of(data) == "$.units[0].text must be a string"


# -- linear time (issue 9, item 4) -----------------------------------------------------


def test_a_megabyte_of_braces_in_the_last_unit_is_read_in_linear_time(tmp_path: Path) -> None:
    text = "{" * 1_000_000
    units = [
        {"unit_id": "a", "kind": "k", "text": "x"},
        {"unit_id": "b", "kind": "k", "text": text},
    ]
    data = orjson.dumps({"document_id": "d", "units": units, "semantic_digest": None})
    data = data.replace(b',"semantic_digest":null', b"")
    status, stderr = chunk_run(tmp_path, data)
    assert status == 0, stderr
    chunks = (tmp_path / "chunks.jsonl").read_bytes()
    assert chunks.count(b"\n") == 1  # one chunk, of both units
    assert orjson.loads(chunks)["end_unit_id"] == "b"


def test_a_megabyte_of_braces_in_an_invalid_document_fails_in_linear_time(
    tmp_path: Path,
) -> None:
    data = HEAD + UNIT + b',{"unit_id":"b","kind":"k","text":"' + b"{" * 1_000_000 + b'"}'
    status, stderr = chunk_run(tmp_path, data)
    assert status == 3, stderr
    assert "the input ends inside $.units" in stderr


def test_a_long_document_id_is_read_in_linear_time(tmp_path: Path) -> None:
    """80 MB: about 3 s of CPU time when linear (the head is shared by both forms);
    more than 30 s before the fix."""
    data = b'{"document_id":"' + b"d" * 80_000_000 + b'"}\n' + UNIT + b"\n"
    status, stderr = chunk_run(tmp_path, data, memory=1 << 30, cpu=12)
    assert status == 0, stderr


def test_the_head_reads_ahead_in_doubling_steps() -> None:
    """Operation count: a head of n bytes read one byte a call is tokenized with
    O(log n) retries of the string token, not one a byte."""

    class Counting(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = io.BytesIO(data)
            self.calls = 0

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            self.calls += 1
            return self.data.read(1 if size else 0)

    document_id = "d" * 100_000
    stream = Counting(orjson.dumps({"document_id": document_id}) + b"\n" + UNIT + b"\n")
    reader = SourceDocumentReader(stream, buffer_size=1)  # type: ignore[arg-type]
    assert len(list(reader)) == 1
    assert reader.identity.document_id == document_id


# -- string and number errors (issue 9, item 9) -----------------------------------------


@pytest.mark.parametrize(
    "string", [b'"\\q"', b'"\\u12G4"', b'"a\x01b"', b'"unterminated', b'"\\ud800"']
)
@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_string_errors_in_the_head_are_invalid_input(string: bytes, form: str) -> None:
    end = b"}\n" if form == "jsonl" else b',"units":[]}'
    message = error_of(b'{"document_id":' + string + end)
    assert message.startswith(("$.document_id: ", "$: the source document is not valid JSON"))
    message = error_of(b"{" + string + b':"d"' + end)
    assert message.startswith("$: "), message


def test_the_head_messages() -> None:
    assert error_of(b'{"document_id":"\\ud800","units":[]}') == (
        "$.document_id: a string holds an unpaired surrogate escape"
    )
    assert error_of(b'{"document_id":"a\x01"}\n') == "$.document_id: not a valid JSON string"
    assert error_of(b'{"document_id":"abc') == (
        "$.document_id: the source document ends inside a string"
    )


def test_a_lone_surrogate_after_units_is_invalid_input() -> None:
    assert error_of(b'{"units":[' + UNIT + b'],"document_id":"\\ud800"}') == (
        "$.document_id: a string holds an unpaired surrogate escape"
    )


@pytest.mark.parametrize("number", [b"0.4e0066999999", b"1e400", b"-0.4e0066999999"])
def test_a_huge_exponent_in_a_unit_is_invalid_input(number: bytes) -> None:
    unit = b'{"unit_id":"a","kind":"k","text":"t","metadata":{"start_ms":' + number + b"}}"
    assert error_of(HEAD + unit + b"]}") == (
        "$.units[0].metadata.start_ms must be an integer from 0 to 2**53-1"
    )
    assert error_of(b'{"document_id":"d"}\n' + unit + b"\n") == "line 2: not valid JSON"


def test_a_lone_surrogate_in_a_unit_is_invalid_input() -> None:
    unit = b'{"unit_id":"a","kind":"k","text":"\\ud800"}'
    assert error_of(HEAD + unit + b"]}") == (
        "$.units[0]: a string holds an unpaired surrogate escape"
    )
    assert error_of(b'{"document_id":"d"}\n' + unit + b"\n") == "line 2: not valid JSON"


@pytest.mark.parametrize(
    "data",
    [
        HEAD + UNIT + b",]}",
        HEAD + b"," + UNIT + b"]}",
        HEAD + UNIT + b" " + UNIT + b"]}",
        HEAD + UNIT + b",," + UNIT + b"]}",
        HEAD + b'{"unit_id":"a","kind":"k","text":NaN}]}',
        HEAD + UNIT + b"]}x",
        HEAD + UNIT + b"] }, {}",
    ],
)
def test_malformed_arrays_are_invalid_json(data: bytes) -> None:
    assert "not valid JSON" in error_of(data)
    assert "not valid JSON" in error_of(data, buffer_size=3)


def test_a_reader_reads_its_document_once() -> None:
    reader = SourceDocumentReader(io.BytesIO(b'{"document_id":"d"}\n' + UNIT + b"\n"))
    assert len(list(reader)) == 1
    with pytest.raises(RuntimeError, match="a reader reads its document once"):
        list(reader)


# -- repeated member names (issue 9, item 10) -------------------------------------------

JSONL_HEAD = b'{"document_id":"d"}\n'


@pytest.mark.parametrize(
    ("unit", "where"),
    [
        (b'{"unit_id":"a","kind":"k","text":"t","text":"u"}', ': member "text"'),
        (b'{"unit_id":"a","unit_id":"a","kind":"k","text":"t"}', ': member "unit_id"'),
        (
            b'{"unit_id":"a","kind":"k","text":"t","metadata":{"speaker":"A","speaker":"B"}}',
            '.metadata: member "speaker"',
        ),
        (
            b'{"unit_id":"a","kind":"k","text":"t",'
            b'"source_ref":{"start_unit_id":"a","start_unit_id":"a","end_unit_id":"a"}}',
            '.source_ref: member "start_unit_id"',
        ),
        (
            b'{"unit_id":"a","kind":"k","text":"t","metadata":{},"metadata":{}}',
            ': member "metadata"',
        ),
        (b'{"unit_id": "a", "kind": "k", "text": "\\u0022", "text": "t"}', ': member "text"'),
    ],
)
def test_repeated_member_names_are_refused_with_their_path(unit: bytes, where: str) -> None:
    expected = f"{where} appears twice (member names must be unique)"
    for buffer_size in (1, 7, 1 << 16):
        assert error_of(JSONL_HEAD + UNIT + b"\n" + unit + b"\n", buffer_size) == (
            f"line 3{expected}"
        )
        assert error_of(HEAD + UNIT + b",\n " + unit + b"]}", buffer_size) == (
            f"$.units[1]{expected}"
        )


def test_units_twice_is_refused_before_the_second_array_is_read() -> None:
    second = b"[" + b",".join([UNIT] * 1000) + b"]"
    data = HEAD + UNIT + b'],"units":' + second + b"}"
    reader = SourceDocumentReader(io.BytesIO(data), buffer_size=64)
    seen = []
    with pytest.raises(SourceError, match=r"^\$: document member units appears twice$"):
        for unit in reader:
            seen.append(unit)
    assert len(seen) == 1  # the second array's units are never yielded


@pytest.mark.parametrize(
    "data",
    [
        b'{"document_id":"d","document_id":"d"}\n',
        b'{"document_id":"d","units":[],"document_id":"d"}',
        b'{"units":[],"document_id":"d","document_id":"d"}',
    ],
)
def test_repeated_document_members_are_refused(data: bytes) -> None:
    assert error_of(data) == "$: document member document_id appears twice"


unit_dicts = st.fixed_dictionaries(
    {"unit_id": st.text(min_size=1, max_size=3), "kind": st.just("k"), "text": st.text(max_size=5)},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "speaker": st.text(max_size=3),
                "start_ms": st.integers(0, 5),
                "end_ms": st.integers(5, 9),
            },
        ),
        "source_ref": st.just(None),
    },
)


def _write(obj: dict[str, Any], style: int, repeat: str | None) -> str:
    """One unit as JSON text in one of several writers' styles, with ``repeat`` (a
    member name of ``obj`` or of its metadata) written twice."""
    if "source_ref" in obj:
        obj["source_ref"] = {"start_unit_id": obj["unit_id"], "end_unit_id": obj["unit_id"]}

    def dump(value: Any) -> str:
        if style == 0:
            return orjson.dumps(value).decode()
        if style == 1:
            return json.dumps(value)  # spaces, ASCII escapes
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def members(mapping: dict[str, Any], inner: bool) -> str:
        parts = []
        for name, value in mapping.items():
            text = members(value, True) if name == "metadata" else dump(value)
            parts.append(f"{dump(name)}:{text}")
            if name == repeat and (inner or name != "speaker"):
                parts.append(f"{dump(name)}:{text}")
        return "{" + ",".join(parts) + "}"

    return members(obj, False)


@given(
    st.lists(unit_dicts, min_size=1, max_size=4),
    st.integers(0, 2),
    st.sampled_from([None, "unit_id", "text", "metadata", "speaker", "source_ref"]),
    st.sampled_from(["json", "jsonl"]),
)
def test_repeated_members_are_found_whatever_the_writer(
    units: list[dict[str, Any]], style: int, repeat: str | None, form: str
) -> None:
    """Brute-force reference: the document repeats a member exactly when one was written
    twice; the reader refuses exactly those documents."""
    unique_ids = {f"u{index}": unit for index, unit in enumerate(units)}
    for unit_id, unit in unique_ids.items():
        unit["unit_id"] = unit_id
    target = random.Random(len(units)).randrange(len(units))
    texts = []
    repeated = False
    for index, unit in enumerate(units):
        name = repeat if index == target else None
        if name == "speaker" and "speaker" not in unit.get("metadata", {}):
            name = None
        if name is not None and name not in unit and name != "speaker":
            name = None
        repeated = repeated or name is not None
        texts.append(_write(dict(unit), style, name))
    if form == "jsonl":
        data = "\n".join(['{"document_id":"d"}', *texts]) + "\n"
    else:
        data = '{"document_id":"d","units":[' + ",\n".join(texts) + "]}"
    try:
        read(data.encode(), buffer_size=5)
    except SourceError as error:
        assert repeated, error.message
        assert "appears twice" in error.message
        return
    assert not repeated


# -- the byte-level scan against a brute-force reference --------------------------------


def _brute_profile(text: bytes) -> tuple[list[int], list[int]]:
    """The depth after each bracket outside strings, and the brackets' positions."""
    depth = 0
    profile, positions = [0], []
    inside = escape = False
    for position, byte in enumerate(text):
        char = chr(byte)
        if inside:
            if escape:
                escape = False
            elif char == "\\":
                escape = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[]{}":
            depth += 1 if char in "[{" else -1
            profile.append(depth)
            positions.append(position)
    return profile, positions


json_values = st.recursive(
    st.text(alphabet='ab"\\{}[]\u00e9', max_size=4) | st.integers(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text('k\\"{', max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_values, st.lists(st.integers(1, 9), max_size=6), st.booleans())
def test_the_nesting_scan_agrees_with_a_byte_by_byte_reference(
    value: Any, cuts: list[int], ascii_only: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    expected, positions = _brute_profile(text)
    scan = NestingScan(limit=1000)
    profile = [0]
    start = 0
    for cut in [*cuts, len(text)]:
        piece = text[start : start + cut]
        neutral, part = scan.feed(piece)
        assert len(neutral) == len(piece)
        profile.extend(part[1:])
        inside = [p - start for p in positions if start <= p < start + len(piece)]
        for from_end in range(1, len(inside) + 1):
            assert bracket_position(neutral, scan.in_string, from_end) == inside[-from_end]
        start += len(piece)
    assert profile == expected


long_strings = st.builds(  # strings of thousands of characters, brackets and quotes in them
    lambda piece, times: piece * times,
    st.text(alphabet='a"\\{}[]\u00e9', min_size=1, max_size=3),
    st.sampled_from([1, 700, 1500, 3000]),
)
long_values = st.lists(
    st.one_of(long_strings, st.builds(lambda text: {"k": [text, 1, {}]}, long_strings)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=80, deadline=None)
@given(long_values, st.integers(0, 9), st.integers(0, 9))
def test_bracket_position_reads_tails_longer_than_its_first_window(
    value: Any, begin: int, length: int
) -> None:  # the piece fed: from ``begin`` ninths of the text to ``(9 + length)`` 18ths
    """Tails of more than 4 KiB, strings that span the window's start, a buffer that
    starts or ends inside a string: the bracket found is the reference's."""
    text = json.dumps(value, ensure_ascii=False).encode()
    _, positions = _brute_profile(text)
    begin, end = sorted((len(text) * begin // 9, len(text) * (9 + length) // 18))
    scan = NestingScan(limit=1000)
    scan.feed(text[:begin])
    piece = text[begin:end]
    neutral, _ = scan.feed(piece)
    inside = [p - begin for p in positions if begin <= p < begin + len(piece)]
    for from_end in {1, 2, len(inside) // 2, len(inside) - 1, len(inside)}:
        if 1 <= from_end <= len(inside):
            assert bracket_position(neutral, scan.in_string, from_end) == inside[-from_end]


# -- lane outputs: repeated member names (issue 9, item 10) -----------------------------


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda text: text.replace('"lane_id":', '"lane_id":"npcs","lane_id":', 1),
            '$: member "lane_id"',
        ),
        (
            lambda text: text.replace('"document_id":', '"document_id":"x","document_id":', 1),
            '$.source: member "document_id"',
        ),
        (
            lambda text: text.replace('"name":"Scanlan"', '"name":"x","name":"Scanlan"', 1),
            '$.records[0]: member "name"',
        ),
        (
            lambda text: text.replace(
                '"start_unit_id":', '"start_unit_id":"a","start_unit_id":', 1
            ),
            '$.records[0].source_refs[0]: member "start_unit_id"',
        ),
    ],
)
def test_repeated_members_in_a_lane_output_are_refused(
    tmp_path: Path, edit: Any, expected: str
) -> None:
    from streamer.api.config import default_registry
    from streamer.framework.errors.types import LaneOutputError
    from streamer.framework.kinds.lane_outputs import read_lane_output
    from tests.support import lane_output, ref

    record = {"npc_id": "n1", "name": "Scanlan", "source_refs": [ref("a")]}
    document = lane_output("npcs", [record], document_id="d", digest="sha256:" + "0" * 64)
    path = tmp_path / "npcs.json"
    text = orjson.dumps(document).decode()
    path.write_text(edit(text))
    kind = default_registry().get("dnd/npcs", where="test")
    with pytest.raises(LaneOutputError) as caught:
        read_lane_output(path, "npcs", kind)
    assert caught.value.message == (
        f"lane npcs (npcs.json): {expected} appears twice (member names must be unique)"
    )
    path.write_text(text)
    assert len(read_lane_output(path, "npcs", kind).records) == 1

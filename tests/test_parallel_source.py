"""The parts of ``--jobs`` on their own, each against a brute-force reference written
here: the tasks of a file (``FileLines``: every line read once, by the task its first
byte falls in), where a line starts (``CanonicalUnits`` from ``LineMarks``), where the
wanted unit IDs are (``find_hits``), and a task's result across the wire
(``TaskResult``: what the work found, decoded whole)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer.framework.source import parallel
from streamer.framework.source.canonical_units import CanonicalUnits
from streamer.framework.source.file_lines import FileLines
from streamer.framework.source.json_lines import JsonLinesParser
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.task_messages import (
    UnitIds,
    canonical_lines,
    decode_result,
    decode_task,
)
from streamer.framework.source.task_work import find_hits, parse_lines
from streamer.framework.source.unit_batches import LineMarks, encode_canonical

LINE = st.binary(max_size=9).map(lambda data: data.replace(b"\n", b"x"))


def reference_lines(data: bytes) -> list[tuple[int, bytes]]:
    """Every line of ``data`` with where it starts (the last one without its newline)."""
    lines, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        lines.append((start, data[start:end]))
        start = end
    return lines


@settings(max_examples=200, deadline=None)
@given(
    head=st.binary(max_size=6).map(lambda data: data.replace(b"\n", b"h") + b"\n"),
    lines=st.lists(LINE, max_size=30),
    ended=st.booleans(),
    task_size=st.integers(1, 40),
)
def test_the_tasks_of_a_file_read_each_line_once_in_order(
    head: bytes, lines: list[bytes], ended: bool, task_size: int
) -> None:
    body = b"\n".join(lines) + (b"\n" if ended and lines else b"")
    data = head + body
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "source.jsonl"
        path.write_bytes(data)
        descriptor = os.open(path, os.O_RDONLY)
        try:
            source = FileLines(descriptor, len(head))
            parallel_size = parallel.TASK_SIZE
            parallel.TASK_SIZE = task_size
            try:
                tasks = [decode_task(task) for task in parallel._ranges(source, len(data))]
            finally:
                parallel.TASK_SIZE = parallel_size
            pieces = []
            for task in tasks:
                buffer, size = source.lines(task.start, task.end, task.last)
                pieces.append((task.start, task.end, task.last, bytes(buffer[:size])))
        finally:
            os.close(descriptor)
    expected = reference_lines(body)
    assert b"".join(piece for *_, piece in pieces) == body
    assert [last for _, _, last, _ in pieces] == [False] * (len(pieces) - 1) + [True]
    taken = 0
    for start, end, last, piece in pieces:  # each task: the lines that start in its range
        got = [line for _, line in reference_lines(piece)]
        theirs = expected[taken : taken + len(got)]
        assert got == [line for _, line in theirs]
        assert all(start <= len(head) + at and (last or len(head) + at < end) for at, _ in theirs)
        taken += len(got)
    assert taken == len(expected)


UNIT = st.builds(
    lambda i, text: {"unit_id": f"u{i}", "kind": "utterance", "text": text},
    st.integers(0, 10**6),
    st.text(alphabet=st.sampled_from('aé🎲"\\\n\u2028 '), max_size=8),
)


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(UNIT, min_size=1, max_size=120),
    parts=st.lists(st.integers(1, 40), min_size=1, max_size=8),
    every=st.integers(1, 9),
    slices=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), max_size=12),
)
def test_a_slice_of_canonical_lines_is_found_from_the_marks(
    items: list[dict[str, str]],
    parts: list[int],
    every: int,
    slices: list[tuple[int, int]],
) -> None:
    """Lines parsed in blocks of any sizes, marked every ``every`` units of each block:
    any run of units is decoded from the right lines, in any order of asking."""
    lines = [msgspec.json.encode(item) + b"\n" for item in items]
    marks = LineMarks()
    marks.EVERY = every
    parser = JsonLinesParser(first_line=1, marks=marks)
    canonical, position, turn = b"", 0, 0
    while position < len(lines):
        size = parts[turn % len(parts)]
        block = b"".join(lines[position : position + size])
        canonical += b"".join(parsed[1] for parsed in parser.parse(block))
        position, turn = position + size, turn + 1
    expected = [msgspec.convert(item, SourceUnit) for item in items]
    data = bytearray(b"head" + canonical)
    units = CanonicalUnits(data, 4, len(canonical), len(items), (marks.lines, marks.offsets))
    assert list(marks.lines) == sorted(marks.lines)
    for low, high in slices:
        assert units[low:high] == expected[low:high]
    assert units[:] == expected
    assert units[-1] == expected[-1]


@given(
    ids=st.lists(st.sampled_from(["a", "b", "c", "d", "é"]), max_size=20),
    wanted=st.frozensets(st.sampled_from(["a", "c", "é", "z"])),
)
def test_the_hits_are_every_wanted_id_in_order(ids: list[str], wanted: frozenset[str]) -> None:
    assert find_hits(wanted, ids) == [
        (i, unit_id) for i, unit_id in enumerate(ids) if unit_id in wanted
    ]


@settings(max_examples=100, deadline=None)
@given(
    items=st.lists(UNIT, max_size=80),
    part_size=st.integers(1, 600),
    wanted=st.none() | st.frozensets(st.sampled_from(["u1", "u2", "u3"])),
)
def test_a_task_result_crosses_the_wire_whole(
    items: list[dict[str, str]], part_size: int, wanted: frozenset[str] | None
) -> None:
    """The work on a task's lines, in parts of any size, encoded and decoded: its lines,
    its units (from the canonical lines, read in place at the end of the message), their
    IDs and where the wanted ones are, as the units parsed here say."""
    for item in items[::3]:
        item["unit_id"] = f"u{len(item['text']) % 4}"  # some wanted, some repeated
    expected = [msgspec.convert(item, SourceUnit) for item in items]
    lines = b"".join(msgspec.json.encode(item) + b"\n" for item in items)
    (message,) = parse_lines(bytearray(lines), wanted, part_size)
    result = decode_result(message)
    assert result is not None
    assert (result.lines, result.blank, result.units) == (len(items), 0, len(items))
    data, start = canonical_lines(result)
    assert data is message
    assert bytes(data[start:]) == (encode_canonical(expected) if expected else b"")
    marks = (result.mark_lines, result.mark_offsets)
    assert CanonicalUnits(data, start, len(result.canonical), result.units, marks)[:] == expected
    ids = [unit.unit_id for unit in expected]
    assert list(UnitIds(result.ids, result.units)) == ids
    if wanted is None:
        assert result.hits is None
    else:
        assert result.hits == [(i, unit_id) for i, unit_id in enumerate(ids) if unit_id in wanted]


def test_a_task_that_fails_is_none_on_the_wire() -> None:
    """Parsed again by the main process, which raises the error of ``--jobs 1``."""
    for lines in (b'{"unit_id": 1}\n', b"not json\n", b"\n\n"):
        (message,) = parse_lines(bytearray(lines), None, 100)
        result = decode_result(message)
        if lines == b"\n\n":  # blank lines parse: the main process decides what they end
            assert result is not None
            assert (result.lines, result.blank, result.units) == (2, 1, 0)
        else:
            assert result is None

"""The source pass reads each cited range once, with exactly its units, at most a chunk
long, and forgets them: against a brute-force reference, on random documents, ranges and
batch sizes."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET

from streamer.framework.source.accepted import LineUnits
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata
from streamer.framework.source.unit_batches import Batch
from streamer.normalization.source_index import SourceIndexTap
from streamer.normalization.support import CitedUnit

MAX_UNITS = 4
_lines = msgspec.json.Encoder()


@st.composite
def documents(draw: Any) -> tuple[list[SourceUnit], list[tuple[str, str]], int]:
    size = draw(st.integers(1, 14))
    units = [
        SourceUnit(
            f"u{index}",
            "utterance",
            f"text {index}",
            metadata=draw(st.sampled_from([UnitMetadata(speaker="A"), UnitMetadata()])),
        )
        for index in range(size)
    ]
    ids = st.sampled_from([*(unit.unit_id for unit in units), "missing"])
    pairs = draw(st.lists(st.tuples(ids, ids), max_size=8))
    return units, pairs, draw(st.integers(1, 5))


@given(documents(), st.booleans())
def test_each_range_is_read_once_with_its_units(drawn: Any, lazy: bool) -> None:
    """``lazy``: the batches of the document ``streamer run`` accepted, whose units are
    decoded from their lines only when taken."""
    units, pairs, batch_size = drawn
    ranges: dict[str, set[str]] = {}
    for start, end in pairs:
        ranges.setdefault(start, set()).add(end)
    read: list[tuple[tuple[str, str], list[CitedUnit]]] = []
    wanted = {unit_id for pair in pairs for unit_id in pair}
    tap = SourceIndexTap(
        MAX_UNITS, 1, set(), wanted, ranges, lambda pair, cited: read.append((pair, list(cited)))
    )
    batches = [
        Batch(
            LineUnits(
                _lines.encode_lines(units[i : i + batch_size]), len(units[i : i + batch_size])
            )
            if lazy
            else units[i : i + batch_size],
            [u.unit_id for u in units[i : i + batch_size]],
        )
        for i in range(0, len(units), batch_size)
    ]
    assert list(tap.tap(batches)) == batches
    position = {unit.unit_id: index for index, unit in enumerate(units)}
    expected = []
    for start, end in sorted(set(pairs)):
        if start in position and end in position:
            low, high = position[start], position[end]
            if low <= high and high - low < MAX_UNITS:
                cited = [
                    CitedUnit(u.text, None if u.metadata.speaker is UNSET else u.metadata.speaker)
                    for u in units[low : high + 1]
                ]
                expected.append(((start, end), cited))
    assert sorted(read, key=repr) == sorted(expected, key=repr)
    assert tap._units == {} and tap._open == {}  # nothing kept once the pass is over

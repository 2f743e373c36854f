"""The parts of the streaming validation against brute-force references (hypothesis)."""

from __future__ import annotations

import io
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.json.events import ITEM, item_events, stream
from streamer.output.schema_catalog import load_schema
from streamer.validation.evidence_shape import REFERENCES, UNITS, stream_items
from streamer.validation.repeated_ids import IdHashes
from streamer.validation.window_union import is_window_union

TEXT = st.text(alphabet=st.sampled_from('aé😀\\"\n x'), max_size=6)
UNIT = st.fixed_dictionaries(
    {"unit_id": TEXT, "kind": TEXT, "text": TEXT},
    optional={
        "metadata": st.fixed_dictionaries(
            {}, optional={"speaker": TEXT, "start_ms": st.integers(0, 9)}
        )
    },
)
INT64 = st.integers(-(2**63) + 1, 2**63 - 1)  # what yajl reads (it refuses -2**63)
ODD = st.one_of(INT64, TEXT, st.lists(INT64, max_size=2), st.none())
CONTEXT = st.fixed_dictionaries(
    {
        "start_unit_id": TEXT,
        "references": st.lists(
            st.fixed_dictionaries(
                {
                    "source_ref": st.fixed_dictionaries({"start_unit_id": TEXT}),
                    "lane_ids": st.lists(TEXT, max_size=2),
                }
            ),
            max_size=2,
        ),
        "units": st.lists(
            st.one_of(
                UNIT,
                ODD,
                st.fixed_dictionaries({"unit_id": TEXT, "extra": st.lists(ODD, max_size=2)}),
            ),
            max_size=4,
        ),
    },
    optional={"extra": ODD},
)
DOCUMENT = st.fixed_dictionaries(
    {"window_units": st.integers(0, 3), "contexts": st.lists(CONTEXT, max_size=3)}
)


@given(DOCUMENT, st.integers(1, 40))
def test_stream_yields_every_unit_and_reference_once_in_order(document: Any, block: int) -> None:
    data = orjson.dumps(document)
    events = list(stream(io.BytesIO(data), stream_items(), block_size=block))
    units = [event[2] for event in events if event[:2] == (UNITS, ITEM)]
    references = [event[2] for event in events if event[:2] == (REFERENCES, ITEM)]
    assert units == [unit for context in document["contexts"] for unit in context["units"]]
    assert references == [ref for context in document["contexts"] for ref in context["references"]]
    assert not any(event[0].startswith((UNITS + ".", REFERENCES + ".")) for event in events)


def test_item_events_of_a_unit() -> None:
    schema = load_schema("notarius.source.evidence_context")
    pairs = item_events("u", schema["$defs"]["unit"], schema["$defs"])
    assert ("u", "end_map") not in pairs  # where a unit ends stays visible
    assert {
        ("u", "start_map"),
        ("u.source_ref", "end_map"),
        ("u.metadata.end_ms", "number"),
    } <= pairs


@given(st.lists(st.integers(0, 40), max_size=60), st.integers(1, 7))
def test_repeated_hashes_match_a_brute_force_count(values: list[int], run: int) -> None:
    ids = [f"id-{value}" for value in values]
    hashes = IdHashes(run=run)
    for start in range(0, len(ids), 5):
        hashes.add(ids[start : start + 5])
    assert hashes.repeated() == {hash(i) for i in ids if ids.count(i) > 1}


def _brute_union(
    spans: list[tuple[int, int]], size: int, window: int, at_start: bool, at_end: bool
) -> bool:
    """Covered positions, counted one by one: the context is exactly what the spans cover,
    expanded by the window, where slack past an end is allowed only at a document end."""
    covered = {p for start, end in spans for p in range(start - window, end + window + 1)}
    inside = {p for p in covered if 0 <= p < size}
    if not spans or inside != set(range(size)):
        return False
    if min(covered) < 0 and not at_start:
        return False
    return not (max(covered) > size - 1 and not at_end)


@given(
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), max_size=4),
    st.integers(1, 14),
    st.integers(0, 3),
    st.booleans(),
    st.booleans(),
)
def test_window_union_matches_a_brute_force_cover(
    raw: list[tuple[int, int]], size: int, window: int, at_start: bool, at_end: bool
) -> None:
    spans = [(start, min(start + length, size - 1)) for start, length in raw if start < size]
    assert is_window_union(spans, size, window, at_start=at_start, at_end=at_end) == _brute_union(
        spans, size, window, at_start, at_end
    )

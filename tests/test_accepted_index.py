"""``streamer run``'s normalize reads the accepted document through extraction's index
(``AcceptedIndex``), only the blocks that hold what its candidates cite: the same chunk
spans, unit positions and cited ranges (each read once, with the same units) as the pass
over every unit (``SourceIndexTap``), on random documents, blocks, chunkings and
candidates citing units inside their chunk, outside it, in no chunk, or in none; and
``UnitsByPosition`` gives the units and IDs the document holds at any positions; the
positions normalize found give the bundle stage its ``Hits``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.framework.source.accepted import AcceptedSource, UnitIndex, UnitsByPosition
from streamer.framework.source.envelope import DocumentIdentity
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import Hits
from streamer.importers.document import utterance, write_document
from streamer.normalization.source_index import AcceptedIndex, SourceIndexTap
from streamer.normalization.support import CitedUnit

Read = list[tuple[tuple[str, str], list[CitedUnit]]]


def examples(count: int) -> settings:
    """Hypothesis settings for a test taking ``tmp_path``: one folder for all its examples
    (each writes its document again)."""
    return settings(
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )


def accepted(folder: Path, count: int, block_size: int) -> tuple[AcceptedSource, list[Any]]:
    """A source document of ``count`` units as the import writes it, accepted, with the
    index extraction writes (blocks of about ``block_size`` bytes); its units."""
    units = [
        utterance(f"u{n:03d}", f"text {n} \u2028 \u00e9", "A" if n % 3 else None, None, None)
        for n in range(count)
    ]
    path = folder / "source.jsonl"
    with open(path, "wb") as out:
        digest, written = write_document("doc", units, out)
    index = UnitIndex()
    source = AcceptedSource(path, DocumentIdentity("doc", digest, written), index)
    decoder = msgspec.json.Decoder(SourceUnit)
    for offset, block in source.blocks(block_size):
        index.add(offset, len(block), [unit.unit_id for unit in decoder.decode_lines(block)])
    index.finish()
    return source, [msgspec.to_builtins(unit) for unit in units]


@examples(60)
@given(st.integers(0, 40), st.integers(1, 400), st.data())
def test_units_by_position_are_the_documents(
    tmp_path: Path, count: int, block_size: int, data: st.DataObject
) -> None:
    source, units = accepted(tmp_path, count, block_size)
    assert source.index is not None
    by_position = UnitsByPosition(source)
    try:
        assert by_position.unit_count == count
        for _ in range(5):  # blocks read again and from the cache, in any order
            start = data.draw(st.integers(0, count))
            stop = data.draw(st.integers(start, count))
            taken = [msgspec.to_builtins(unit) for unit in by_position.units(start, stop)]
            assert taken == units[start:stop]
            assert by_position.ids(start, stop) == [unit["unit_id"] for unit in units[start:stop]]
        with pytest.raises(IndexError):
            by_position.ids(0, count + 1)
    finally:
        source.index.close()


def test_a_shorter_file_fails(tmp_path: Path) -> None:
    source, _ = accepted(tmp_path, 30, 100)
    assert source.index is not None
    data = source.path.read_bytes()
    source.path.write_bytes(data[: len(data) - 50])
    with pytest.raises(SourceError, match="changed while it was read"):
        UnitsByPosition(source).units(0, 30)
    source.index.close()


@st.composite
def cases(draw: Any) -> tuple[int, int, int, int, dict[str, set[str]], list[tuple[str, str]]]:
    count = draw(st.integers(1, 40))
    max_units = draw(st.integers(1, 8))
    overlap = draw(st.integers(0, max_units - 1))
    ids = st.sampled_from([*(f"u{n:03d}" for n in range(count)), "missing", "u999"])
    chunk_ids = st.sampled_from([f"chunk-{n:06d}" for n in range(0, count + 2)] + ["chunk-1"])
    cited: dict[str, set[str]] = {}
    pairs: list[tuple[str, str]] = []
    for chunk_id in draw(st.lists(chunk_ids, max_size=6)):
        near = draw(st.lists(ids, max_size=4))
        cited.setdefault(chunk_id, set()).update(near)
        for _ in range(draw(st.integers(0, 3))):
            pair = (draw(ids), draw(ids))
            cited[chunk_id].update(pair)
            pairs.append(pair)
    return count, draw(st.integers(1, 300)), max_units, overlap, cited, pairs


@examples(200)
@given(cases())
def test_the_index_reads_what_the_pass_reads(tmp_path: Path, case: Any) -> None:
    count, block_size, max_units, overlap, cited, pairs = case
    source, _ = accepted(tmp_path, count, block_size)
    assert source.index is not None
    ranges: dict[str, set[str]] = {}
    for start, end in pairs:
        ranges.setdefault(start, set()).add(end)
    by_pass: Read = []
    tap = SourceIndexTap(
        max_units,
        overlap,
        set(cited),
        {unit_id for ids in cited.values() for unit_id in ids},
        ranges,
        lambda pair, units: by_pass.append((pair, list(units))),
    )
    for _ in tap.tap(source.batches()):
        pass
    by_index: Read = []
    index = AcceptedIndex(
        UnitsByPosition(source),
        max_units,
        overlap,
        cited,
        ranges,
        lambda pair, units: by_index.append((pair, list(units))),
    )
    try:
        assert index.chunks == tap.chunks
        assert index.positions == tap.positions
        assert sorted(by_index, key=repr) == sorted(by_pass, key=repr)
        assert len(by_index) == len({pair for pair, _ in by_index})  # each range once
    finally:
        source.index.close()


@examples(60)
@given(st.integers(1, 40), st.integers(1, 300), st.data())
def test_batches_say_where_the_wanted_ids_are_once_a_stage_found_them(
    tmp_path: Path, count: int, block_size: int, data: st.DataObject
) -> None:
    """The bundle stage of a run looks for the IDs its references name: where normalize
    found every one of them, each batch says where they are (``Hits``), as a lookup among
    its IDs finds them; while one is not known, no batch says (the consumer looks)."""
    source, units = accepted(tmp_path, count, block_size)
    assert source.index is not None
    ids = [unit["unit_id"] for unit in units]
    wanted = frozenset(data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=6)))
    try:
        positions = {unit_id: ids.index(unit_id) for unit_id in wanted}
        known = data.draw(st.sets(st.sampled_from(sorted(wanted)), max_size=len(wanted) - 1))
        source.index.positions.update({unit_id: positions[unit_id] for unit_id in known})
        assert [batch.hits for batch in source.batches(wanted=wanted)] == [None] * len(
            list(source.index.blocks())
        )
        source.index.positions.update(positions)
        batches = list(source.batches(wanted=wanted))
        assert [unit_id for batch in batches for unit_id in batch.ids] == ids
        for batch in batches:
            found = [(at, unit_id) for at, unit_id in enumerate(batch.ids) if unit_id in wanted]
            assert batch.hits == Hits(wanted, found)
        assert [batch.hits for batch in source.batches()] == [None] * len(batches)
        # a position that is not the ID's: the document is not the one the stage read
        first = min(wanted, key=positions.__getitem__)
        source.index.positions[first] = (positions[first] + 1) % count
        if count > 1:
            with pytest.raises(SourceError, match="changed while it was read"):
                list(source.batches(wanted=wanted))
    finally:
        source.index.close()

"""The source document ``streamer run`` accepted, read again without validation: the same
units, unit IDs, identity and chunks as the validating reader gives, however it is cut;
a file that is not the one accepted fails."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Generator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.configuration import resolve_configuration
from streamer.extraction.chunks import accepted_chunk_plan, chunk_plan
from streamer.framework.errors.types import SourceError
from streamer.framework.source.accepted import AcceptedSource, LineUnits, UnitIndex
from streamer.framework.source.envelope import DocumentIdentity
from streamer.framework.source.reader import SourceDocumentReader
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.document import utterance, write_document
from tests.support import config_dict

texts = st.text(
    st.characters(exclude_categories=["Cs"]), max_size=12
)  # any character a transcript may hold: line breaks, quotes, U+2028, emoji
speakers = st.none() | st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=5)
times = st.none() | st.integers(0, 10)
unit_lists = st.lists(st.tuples(texts, speakers, times), max_size=30)


def imported(items: list[tuple[str, str | None, int | None]]) -> list[SourceUnit]:
    """Units as an importer builds them (metadata only when there is some)."""
    return [
        utterance(f"u{index:03d}", text, speaker, start, None if start is None else start + 1)
        for index, (text, speaker, start) in enumerate(items)
    ]


def written(folder: Path, units: list[SourceUnit]) -> tuple[Path, DocumentIdentity]:
    """The source document the import writes for ``units``, and its identity."""
    path = folder / "source.jsonl"
    with open(path, "wb") as out:
        digest, count = write_document("doc", units, out)
    return path, DocumentIdentity("doc", digest, count)


def reader_batches(path: Path) -> tuple[list[Any], list[str], DocumentIdentity]:
    with open(path, "rb") as stream:
        reader = SourceDocumentReader(stream)
        units: list[Any] = []
        ids: list[str] = []
        for batch in reader.batches():
            units += [msgspec.to_builtins(unit) for unit in batch.units]
            ids += batch.ids
        return units, ids, reader.identity


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(unit_lists, st.sampled_from([1, 2, 7, 64, 1 << 17]))
def test_the_batches_are_the_readers(
    tmp_path_factory: pytest.TempPathFactory, items: Any, block_size: int
) -> None:
    path, identity = written(tmp_path_factory.mktemp("doc"), imported(items))
    expected_units, expected_ids, expected_identity = reader_batches(path)
    assert identity == expected_identity
    source = AcceptedSource(path, identity)
    units: list[Any] = []
    ids: list[str] = []
    for batch in source.batches(block_size):
        assert len(batch.units) == len(batch.ids)
        ids += batch.ids
        units += [msgspec.to_builtins(unit) for unit in batch.units[:]]
        # one at a time and by slices: the same units
        assert [batch.units[i] for i in range(len(batch.ids))] == list(batch.units[:])
    assert ids == expected_ids
    assert units == expected_units


def test_line_units_decode_what_is_taken() -> None:
    units = imported([("a", "MATT", 1), ("b\nc", None, None), ("🎲", "SAM", None)])
    block = msgspec.json.Encoder().encode_lines(units)
    taken = LineUnits(memoryview(block), 3)
    assert len(taken) == 3
    assert taken[1] == units[1]
    assert taken[-1] == units[2]
    assert taken[0:2] == units[0:2]
    assert taken[1:] == units[1:]
    assert taken[2:1] == []
    assert taken[::2] == [units[0], units[2]]
    assert LineUnits(block[:-1], 3)[2] == units[2]  # the document's last line, no newline
    with pytest.raises(IndexError):
        taken[3]


def test_a_blank_line_is_not_the_imported_document() -> None:
    units = imported([("a", None, None), ("b", None, None)])
    lines = msgspec.json.Encoder().encode_lines(units)
    with pytest.raises(SourceError, match="a blank line"):
        LineUnits(lines + b"\n", 2)[0]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda data: data.replace(b'"doc"', b'"other"', 1), "another header"),
        (lambda data: data[: data.rindex(b"\n", 0, len(data) - 1) + 1], "another count of units"),
        (lambda data: data + data[data.index(b"\n") + 1 :], "another count of units"),
        (lambda data: b"", "it is empty"),
    ],
)
def test_a_file_that_is_not_the_one_accepted_fails(
    tmp_path: Path, change: Any, problem: str
) -> None:
    path, identity = written(tmp_path, imported([("a", None, None), ("b", "LIAM", 4)]))
    path.write_bytes(change(path.read_bytes()))
    with pytest.raises(SourceError) as raised:
        for _ in AcceptedSource(path, identity).batches():
            pass
    assert raised.value.message == f"the source document changed while it was read ({problem})"
    with pytest.raises(SourceError, match="changed while it was read"):
        list(accepted_chunk_plan(configuration(3, 1), AcceptedSource(path, identity)).chunks())


def configuration(max_units: int, overlap_units: int) -> Any:
    data = config_dict(["spells"], None)
    data["pipeline"]["chunking"] = {"max_units": max_units, "overlap_units": overlap_units}
    return resolve_configuration(data, api.default_registry())


chunking = st.integers(1, 6).flatmap(lambda m: st.tuples(st.just(m), st.integers(0, m - 1)))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(unit_lists, chunking)
def test_the_chunk_plan_is_the_one_of_the_checked_document(
    tmp_path_factory: pytest.TempPathFactory, items: Any, sizes: tuple[int, int]
) -> None:
    config = configuration(*sizes)
    path, identity = written(tmp_path_factory.mktemp("doc"), imported(items))
    with chunk_plan(config, io.BytesIO(path.read_bytes())) as checked:
        expected = [(c.chunk_id, c.units, c.digest) for c in checked.chunks()]
        expected_count = checked.chunk_count
        expected_identity = (checked.document_id, checked.semantic_digest)
    plan = accepted_chunk_plan(config, AcceptedSource(path, identity))
    assert (plan.document_id, plan.semantic_digest) == expected_identity
    assert plan.chunk_count == expected_count == len(expected)
    for _ in range(2):  # as often as needed
        assert [(c.chunk_id, c.units, c.digest) for c in plan.chunks()] == expected
    for _, units, digest in expected:  # what keys the cache: the units' IDs, text, speakers
        shown = [{"unit_id": u.unit_id, "text": u.text, "speaker": u.speaker} for u in units]
        assert digest == hashlib.sha256(msgspec.json.encode(shown)).hexdigest()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(st.lists(st.tuples(texts, speakers, times), min_size=1, max_size=30), chunking)
def test_the_index_extraction_writes_gives_the_same_batches(
    tmp_path_factory: pytest.TempPathFactory, items: Any, sizes: tuple[int, int]
) -> None:
    path, identity = written(tmp_path_factory.mktemp("doc"), imported(items))
    expected_units, expected_ids, _ = reader_batches(path)
    index = UnitIndex()
    try:
        source = AcceptedSource(path, identity, index)
        plan = accepted_chunk_plan(configuration(*sizes), source)
        assert index.empty and not index.complete
        for _ in range(2):  # the first pass to the end writes it, the second leaves it
            list(plan.chunks())
            assert index.complete
        done: list[tuple[int, int | None]] = []
        batches = list(source.batches(progress=lambda read, size: done.append((read, size))))
        assert [i for batch in batches for i in batch.ids] == expected_ids
        assert [msgspec.to_builtins(u) for b in batches for u in b.units[:]] == expected_units
        size = path.stat().st_size
        assert done == [(end, size) for end in _block_ends(index)]
        assert not done or done[-1] == (size, size)
    finally:
        index.close()


def _block_ends(index: UnitIndex) -> list[int]:
    return [offset + length for offset, length, _ in index.blocks()]


def test_an_abandoned_index_is_never_read(tmp_path: Path) -> None:
    path, identity = written(tmp_path, imported([("a", None, None)] * 5))
    index = UnitIndex()
    source = AcceptedSource(path, identity, index)
    plan = accepted_chunk_plan(configuration(2, 0), source)
    chunks = plan.chunks()
    assert isinstance(chunks, Generator)
    next(chunks)
    chunks.close()  # a pass abandoned half way
    list(plan.chunks())  # the index is no longer empty: this pass does not write it
    assert not index.empty and not index.complete
    assert [i for b in source.batches() for i in b.ids] == [f"u{n:03d}" for n in range(5)]
    index.close()

"""``streamer chunk``: the extraction chunks, exactly the framework Chunker's cut."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.configuration import Configuration, resolve_configuration
from streamer.extraction.chunks import chunk_count
from streamer.framework.chunking.chunker import Chunker, chunk_id, chunk_span
from tests.import_cases import EXPECTED, FIXTURES
from tests.support import chunk_map_entries, config_dict, invoke, jsonl_bytes, unit

Bounds = list[tuple[str, int, int]]


def brute_force(count: int, max_units: int, overlap_units: int) -> Bounds:
    """Chunk k starts at k * step; it is made while it holds a unit the previous did not."""
    step = max_units - overlap_units
    chunks: Bounds = []
    for k in range(count + 1):
        start = k * step
        end = min(start + max_units, count) - 1
        if start >= count or (chunks and end <= chunks[-1][2]):
            break
        chunks.append((f"chunk-{k + 1:06d}", start, end))
    return chunks


def chunker_bounds(count: int, max_units: int, overlap_units: int) -> Bounds:
    chunker: Chunker[int] = Chunker(max_units, overlap_units)
    chunks = [chunk for position in range(count) for chunk in chunker.add(position)]
    chunks.extend(chunker.finish())
    bounds = []
    for chunk in chunks:
        assert list(chunk.items) == list(range(chunk.start_position, chunk.items[-1] + 1))
        bounds.append((chunk.chunk_id, chunk.start_position, chunk.items[-1]))
    return bounds


def configuration(max_units: int, overlap_units: int) -> Configuration:
    data = config_dict(["spells"], None)
    data["pipeline"]["chunking"] = {"max_units": max_units, "overlap_units": overlap_units}
    return resolve_configuration(data, api.default_registry())


sizes = st.integers(min_value=1, max_value=12).flatmap(
    lambda m: st.tuples(
        st.integers(min_value=0, max_value=60),
        st.just(m),
        st.integers(min_value=0, max_value=m - 1),
    )
)


def test_brute_force_examples() -> None:
    assert brute_force(7, 4, 1) == [("chunk-000001", 0, 3), ("chunk-000002", 3, 6)]
    assert brute_force(8, 4, 1) == [
        ("chunk-000001", 0, 3),
        ("chunk-000002", 3, 6),
        ("chunk-000003", 6, 7),
    ]
    assert brute_force(5, 3, 2) == [
        ("chunk-000001", 0, 2),
        ("chunk-000002", 1, 3),
        ("chunk-000003", 2, 4),
    ]
    assert brute_force(0, 3, 0) == []
    assert brute_force(2, 10, 2) == [("chunk-000001", 0, 1)]


@given(sizes)
@settings(max_examples=300, deadline=None)
def test_chunker_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    assert chunker_bounds(*size) == brute_force(*size)


@given(sizes)
@settings(max_examples=300, deadline=None)
def test_chunk_span_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    """Each chunk's span by arithmetic, no other ID (past the last, spelled otherwise)."""
    chunks = brute_force(*size)
    for name, start, end in chunks:
        assert chunk_span(name, *size) == (start, end)
    others = [f"chunk-{len(chunks) + 1:06d}", "chunk-000000", "chunk-1", "chunk-0000001"]
    others += ["chunk--00001", "chunk-00000\u0661", "chunk-", "000001", "Chunk-000001"]
    assert [chunk_span(name, *size) for name in others] == [None] * len(others)


@given(sizes)
@settings(max_examples=300, deadline=None)
def test_chunk_count_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    assert chunk_count(*size) == len(brute_force(*size))


@given(sizes)
@settings(max_examples=150, deadline=None)
def test_chunk_api_agrees_with_brute_force(size: tuple[int, int, int]) -> None:
    count, max_units, overlap_units = size
    # Opaque unit IDs, not in lexical order; every third unit has no speaker.
    ids = [f"id-{(position * 37) % 101}-{position}" for position in range(count)]
    doc_units = [
        unit(unit_id, f"text {position}", speaker=f"S{position % 4}")
        if position % 3
        else unit(unit_id, f"text {position}")
        for position, unit_id in enumerate(ids)
    ]
    out = io.BytesIO()
    result = api.chunk(
        configuration(max_units, overlap_units),
        io.BytesIO(jsonl_bytes("doc", doc_units)),
        output=out,
    )
    expected = brute_force(count, max_units, overlap_units)
    assert result.chunk_count == len(expected)
    assert result.unit_count == count
    lines = out.getvalue().splitlines()
    assert [orjson.loads(line) for line in lines] == [
        {
            "chunk_id": name,
            "start_unit_id": ids[start],
            "end_unit_id": ids[end],
            "units": [
                {"unit_id": ids[p], "speaker": f"S{p % 4}", "text": f"text {p}"}
                if p % 3
                else {"unit_id": ids[p], "text": f"text {p}"}
                for p in range(start, end + 1)
            ],
        }
        for name, start, end in expected
    ]


def _chunk_args(config: Path, source: str, *extra: str) -> list[str]:
    return ["chunk", "--config", str(config), "--source", source, *extra]


def test_chunk_command_writes_the_committed_chunks(tmp_path: Path) -> None:
    source = EXPECTED / "webvtt.jsonl"
    config = FIXTURES / "streamer.yaml"
    expected = (EXPECTED / "webvtt-chunks.jsonl").read_bytes()
    from_file = invoke(_chunk_args(config, str(source)))
    from_stdin = invoke(_chunk_args(config, "-"), input=source.read_bytes())
    out = tmp_path / "chunks.jsonl"
    to_file = invoke(_chunk_args(config, str(source), "--output", str(out)))
    assert (from_file.status, from_file.stderr) == (0, "")
    assert from_file.stdout == expected
    assert (from_stdin.status, from_stdin.stdout) == (0, expected)
    assert (to_file.status, to_file.stdout, out.read_bytes()) == (0, b"", expected)
    first, second = (orjson.loads(line) for line in expected.splitlines())
    assert (first["chunk_id"], first["start_unit_id"], first["end_unit_id"]) == (
        "chunk-000001",
        "u000001",
        "u000004",
    )
    assert (second["chunk_id"], second["start_unit_id"], second["end_unit_id"]) == (
        "chunk-000002",
        "u000004",
        "u000007",
    )
    assert first["units"][4 - 1] == second["units"][0]  # the one shared unit
    assert second["units"][1] == {"unit_id": "u000005", "text": "[the goblin shrieks]"}


@pytest.mark.parametrize(
    ("max_units", "overlap_units"), [(1, 0), (3, 1), (4, 3), (5, 0), (100, 10)]
)
def test_chunk_command_bounds_are_the_chunkers(
    max_units: int, overlap_units: int, tmp_path: Path
) -> None:
    source = EXPECTED / "text.jsonl"
    ids = [orjson.loads(line)["unit_id"] for line in source.read_bytes().splitlines()[1:]]
    data: dict[str, Any] = config_dict(["spells"], None)
    data["pipeline"]["chunking"] = {"max_units": max_units, "overlap_units": overlap_units}
    config = tmp_path / "streamer.yaml"
    config.write_text(yaml.safe_dump(data))
    run = invoke(_chunk_args(config, str(source)))
    assert (run.status, run.stderr) == (0, "")
    chunker: Chunker[str] = Chunker(max_units, overlap_units)
    chunks = [chunk for unit_id in ids for chunk in chunker.add(unit_id)]
    chunks.extend(chunker.finish())
    got = [orjson.loads(line) for line in run.stdout.splitlines()]
    assert [(c["chunk_id"], c["start_unit_id"], c["end_unit_id"]) for c in got] == [
        (chunk.chunk_id, chunk.items[0], chunk.items[-1]) for chunk in chunks
    ]
    assert [[u["unit_id"] for u in c["units"]] for c in got] == [
        list(chunk.items) for chunk in chunks
    ]
    assert [c["chunk_id"] for c in got] == [chunk_id(index) for index in range(len(chunks))]


def test_chunk_of_an_invalid_source_writes_nothing(tmp_path: Path) -> None:
    tampered = (EXPECTED / "webvtt.jsonl").read_bytes().replace(b"Gorge", b"Gulch")
    source = tmp_path / "source.jsonl"
    source.write_bytes(tampered)
    out = tmp_path / "chunks.jsonl"
    config = FIXTURES / "streamer.yaml"
    to_file = invoke(_chunk_args(config, str(source), "--output", str(out)))
    to_stdout = invoke(_chunk_args(config, "-"), input=tampered)
    for run in (to_file, to_stdout):
        assert (run.status, run.stdout) == (3, b"")
        assert run.stderr.startswith("streamer: error: semantic_digest does not match the units")
        assert run.stderr.count("\n") == 1
        assert "Gulch" not in run.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["source.jsonl"]


def test_chunk_of_an_empty_document_is_empty() -> None:
    out = io.BytesIO()
    result = api.chunk(configuration(4, 1), io.BytesIO(jsonl_bytes("doc", [])), output=out)
    assert (result.chunk_count, result.unit_count, out.getvalue()) == (0, 0, b"")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 9), max_size=12),
    st.integers(1, 7),
    st.integers(0, 6),
)
def test_batch_feeding_cuts_the_same_chunks_as_item_by_item(
    batch_sizes: list[int], max_units: int, overlap: int
) -> None:
    from streamer.framework.chunking.chunker import Chunker

    overlap = min(overlap, max_units - 1)
    items = list(range(sum(batch_sizes)))
    one_by_one: Chunker[int] = Chunker(max_units, overlap)
    expected = [chunk for item in items for chunk in one_by_one.add(item)]
    expected += list(one_by_one.finish())
    batched: Chunker[int] = Chunker(max_units, overlap)
    made = []
    start = 0
    for size in batch_sizes:
        made += batched.add_many(items[start : start + size])
        start += size
    made += list(batched.finish())
    assert made == expected


class _CountedIds(list[str]):
    """A batch's unit IDs that count the ones read."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        _CountedIds.reads += 1
        return super().__getitem__(index)

    def __iter__(self) -> Any:
        raise AssertionError("the chunk map tap reads a batch's IDs one by one")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 9), max_size=12),
    st.integers(1, 7),
    st.integers(0, 6),
)
def test_the_chunk_map_tap_bounds_are_the_chunkers_whatever_the_batches(
    batch_sizes: list[int], max_units: int, overlap: int
) -> None:
    """The bundle's chunk map (``ChunkBoundsTap``, which reads only the IDs at the chunks'
    ends) holds the first and last IDs and the size of each chunk the Chunker cuts, item
    by item, however the units come in batches."""
    from streamer.framework.source.unit_batches import Batch
    from streamer.output.chunk_map_tap import ChunkBoundsTap

    overlap = min(overlap, max_units - 1)
    ids = [f'u"{i}é' for i in range(sum(batch_sizes))]  # escaped in JSON
    expected = chunk_map_entries(ids, max_units, overlap)
    tap = ChunkBoundsTap(max_units, overlap)
    batches, start = [], 0
    for size in batch_sizes:
        batches.append(Batch([], _CountedIds(ids[start : start + size])))
        start += size
    _CountedIds.reads = 0
    assert list(tap.tap(batches)) == batches
    out = io.BytesIO()
    tap.copy_chunks(out)
    tap.close()
    assert orjson.loads(b"[" + out.getvalue() + b"]") == expected
    assert tap.count == len(expected)
    # two IDs a chunk, the last ID of each batch, the first IDs of the chunks that the
    # end of the document leaves unmade (a tail of the last chunk made)
    unmade = -(-max_units // (max_units - overlap))
    assert _CountedIds.reads <= 2 * len(expected) + len(batch_sizes) + unmade

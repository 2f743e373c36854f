"""``streamer run --jobs N``: the rules lanes' chunks answered by N processes, the bytes of
``--jobs 1``; ``rules_pool.chunk_answers`` against the answers of one process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamer import api
from streamer.api.runs import report_path_of, work_folder_of
from streamer.extraction import rules_pool
from streamer.extraction.chunks import ChunkPlan, ExtractionChunk
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.engines import ChunkExtractor
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from tests.bundle_support import CRD3_EPISODES
from tests.run_support import CONFIG, RULES_LANES, TRANSCRIPT, quiet, tree
from tests.support import invoke


def _published(root: Path) -> dict[str, bytes]:
    """The bundle, the report and the candidates files of the run that published ``root``."""
    return {
        **{f"bundle/{name}": data for name, data in tree(root).items()},
        "report": report_path_of(root).read_bytes(),
        **{
            f"candidates/{name}": data
            for name, data in tree(work_folder_of(root) / "candidates").items()
        },
    }


def _run_cli(tmp: Path, name: str, *args: str) -> dict[str, Any]:
    result = invoke(
        ["run", "--config", str(CONFIG), str(TRANSCRIPT), "--output", name, "--json", *args],
        cwd=tmp,
    )
    assert result.status == 0, result.stderr
    receipt: dict[str, Any] = orjson.loads(result.stdout)
    for stage in receipt["stages"]:
        del stage["seconds"]
    del receipt["report"]  # the output's name
    return receipt


def test_run_jobs_publishes_the_bytes_of_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules_pool, "TASK_CHUNKS", 1)  # the fixture's 4 chunks: 4 tasks
    one = _run_cli(tmp_path, "one")
    two = _run_cli(tmp_path, "two", "--jobs", "2")
    three = _run_cli(tmp_path, "three", "--jobs", "3")
    assert one == two == three
    (spells,) = next(s for s in one["stages"] if s["stage"] == "extract")["counts"]["lanes"]
    assert (spells["chunks"], spells["candidates"]) == (4, 1)
    published = _published(tmp_path / "one")
    assert published == _published(tmp_path / "two") == _published(tmp_path / "three")


@pytest.mark.parametrize("jobs", ["0", "65", "two"])
def test_a_bad_jobs_is_a_usage_error_before_any_stage(tmp_path: Path, jobs: str) -> None:
    result = invoke(
        ["run", str(TRANSCRIPT), "--output", "out", "--jobs", jobs, "--quiet"], cwd=tmp_path
    )
    assert result.status == 2
    if jobs != "two":  # typer's own message for what is not a number
        assert "--jobs must be a whole number from 1 to 64" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == []


def test_the_api_refuses_a_bad_jobs(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="--jobs must be a whole number from 1 to 64"):
        api.run(None, TRANSCRIPT, "text", tmp_path / "out", jobs=0, warn=quiet)


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
def test_a_crd3_episode_with_every_rules_lane_publishes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default configuration's rules lanes, the NPC and place rules surveying the session
    first (their workers fork after the survey)."""
    monkeypatch.setattr(rules_pool, "TASK_CHUNKS", 2)
    episode = CRD3_EPISODES[0]
    published = {}
    for jobs in (1, 2):
        output = tmp_path / f"jobs-{jobs}"
        result = api.run(None, episode, "crd3", output, lanes=RULES_LANES, jobs=jobs, warn=quiet)
        extracted = next(o for o in result.stages if o.stage == "extract").counts
        assert extracted["chunks"] > 20  # 12 tasks
        found = {lane["lane_id"]: lane["candidates"] for lane in extracted["lanes"]}
        assert set(found) == set(RULES_LANES)
        assert all(found[lane] > 0 for lane in ("npcs", "places", "spells"))
        published[jobs] = _published(output)
    assert published[1] == published[2]


# -- chunk_answers against one process -------------------------------------------------------


class _Echo:
    """An extractor that answers each unit holding its ``mark`` with a record of the unit's
    ID, speaker and text (a lone surrogate: units no encoder takes), and raises on a unit
    holding ``fail``."""

    version = "test/echo@1"

    def __init__(self, mark: str, fail: str | None = None) -> None:
        self.mark = mark
        self.fail = fail

    def __call__(self, units: Sequence[ShownUnit], context: RulesContext) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for unit in units:
            if self.fail is not None and self.fail in unit.text:
                raise ValueError(f"engine bug on {unit.unit_id}")
            if self.mark in unit.text:
                records.append({"unit": unit.unit_id, "who": unit.speaker, "said": [unit.text]})
        return records


@dataclass(frozen=True)
class _Lane:
    extractor: ChunkExtractor | None


TEXT = st.text(alphabet=st.sampled_from(["a", "b", "é", "字", "😀", "\ud800", " "]), max_size=6)
UNITS = st.lists(st.tuples(st.none() | st.sampled_from(["GM", "Ré"]), TEXT), max_size=5)


def _plan(chunks: list[list[tuple[str | None, str]]]) -> ChunkPlan:
    made = [
        ExtractionChunk(
            f"c{number}",
            tuple(ShownUnit(f"u{number}-{i}", who, text) for i, (who, text) in enumerate(units)),
        )
        for number, units in enumerate(chunks)
    ]
    return ChunkPlan("doc", "digest", len(made), lambda: iter(made))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    chunks=st.lists(UNITS, max_size=40),  # up to 40 tasks: more than the pool holds at once
    task_chunks=st.integers(1, 4),
    jobs=st.integers(1, 3),
)
def test_chunk_answers_are_those_of_one_process(
    chunks: list[list[tuple[str | None, str]]], task_chunks: int, jobs: int
) -> None:
    echoes = [_Echo("a"), _Echo("é")]
    lanes = [_Lane(echo) for echo in echoes]
    context = RulesContext()
    plan = _plan(chunks)
    expected = [
        (chunk.chunk_id, [echo(chunk.units, context) for echo in echoes]) for chunk in plan.chunks()
    ]
    original = rules_pool.TASK_CHUNKS
    rules_pool.TASK_CHUNKS = task_chunks
    try:
        got = [
            (chunk.chunk_id, answers)
            for chunk, answers in rules_pool.chunk_answers(plan, lanes, context, jobs)
        ]
    finally:
        rules_pool.TASK_CHUNKS = original
    assert got == expected


def test_an_engine_error_in_a_worker_is_raised_as_one_process_raises_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rules_pool, "TASK_CHUNKS", 1)
    chunks: list[list[tuple[str | None, str]]] = [[(None, "a")], [("GM", "boom a")], [(None, "a")]]
    lanes = [_Lane(_Echo("a", fail="boom"))]
    answered = []
    with pytest.raises(ValueError, match="engine bug on u1-0"):
        for chunk, answers in rules_pool.chunk_answers(_plan(chunks), lanes, RulesContext(), 2):
            answered.append((chunk.chunk_id, answers))
    assert answered == [("c0", [[{"unit": "u0-0", "who": None, "said": ["a"]}]])]


@pytest.mark.parametrize("jobs", [2, 3])
def test_many_more_tasks_than_the_pool_holds_come_back_in_order(
    monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setattr(rules_pool, "TASK_CHUNKS", 1)
    chunks: list[list[tuple[str | None, str]]] = [
        [("GM", f"a{number}"), (None, "é" * (number % 3))] for number in range(200)
    ]
    lanes = [_Lane(_Echo("a")), _Lane(_Echo("é"))]
    plan = _plan(chunks)
    got = list(rules_pool.chunk_answers(plan, lanes, RulesContext(), jobs))
    assert [chunk.chunk_id for chunk, _ in got] == [f"c{number}" for number in range(200)]
    for number, (_, (marked, accented)) in enumerate(got):
        assert marked == [{"unit": f"u{number}-0", "who": "GM", "said": [f"a{number}"]}]
        assert len(accented) == (1 if number % 3 else 0)

"""The time left replayed over the answer times of real runs (issue 35's target: after
20% of the chunks, within 25% of the actual remaining time).

Each trace in ``tests/time_left_traces/`` was recorded by ``benchmarks/eta_trace.py`` on
the real server of the tests (llama-cpp-python 0.3.36, SmolLM2-135M), the default lanes
over a CRD3 slice: for every answer the progress line was given, its time in seconds
from the stage's start, its lane and its chunk count; nothing of the transcript. The
replay feeds them to ``TimeLeft`` in order and compares, when every lane has answered
chunk ``k``, the estimate with the time the stage actually took after it (to its last
answer). Nothing waits: the times are the recorded ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from streamer.cli.time_left import TimeLeft

TRACES = Path(__file__).parent / "time_left_traces"
POINTS = (20, 25, 50, 75)  # percent of the chunks done by every lane
TARGET = 25  # percent


def replay(trace: dict[str, Any]) -> dict[int, int]:
    """The estimate's error (percent of the actual time left, rounded) at each point."""
    answers, total = trace["answers"], trace["chunks"]
    end = answers[-1][0]
    kept, done, errors = TimeLeft(), dict[str, int](), dict[int, int]()
    for when, lane_id, chunk in answers:
        kept.answered(lane_id, chunk, total, when)
        done[lane_id] = max(chunk, done.get(lane_id, 0))
        if len(done) < trace["lanes"]:
            continue
        for point in POINTS:
            if point not in errors and min(done.values()) * 100 >= point * total:
                seconds, actual = kept.seconds(), end - when
                assert seconds is not None
                errors[point] = round(100 * (seconds - actual) / actual)
    return errors


@pytest.mark.parametrize(
    ("name", "errors"),
    [
        ("per-lane-c1e001", {20: 2, 25: 0, 50: -2, 75: 6}),  # load 2.9 to 4.0
        ("per-lane-c2e001", {20: 20, 25: 12, 50: -11, 75: -12}),  # load 2.2 to 4.2
        ("combined-c1e001", {20: -16, 25: -12, 50: -3, 75: 6}),  # load 3.0 to 4.0
        ("combined-c2e001-steady", {20: 19, 25: 21, 50: 7, 75: 2}),  # load 0.7 to 1.3
    ],
)
def test_the_time_left_is_within_the_target(name: str, errors: dict[int, int]) -> None:
    """On a machine whose load stays about the same, the target holds."""
    trace = json.loads((TRACES / f"{name}.json").read_text("utf-8"))
    found = replay(trace)
    assert found == errors
    assert all(abs(error) <= TARGET for error in found.values())


def test_a_rising_load_is_not_foreseen() -> None:
    """The machine's load rose from 3.7 to 8.0 during this run: its chunks took 24 to 27
    s at the start, 31 to 52 s in the first half and 39 to 72 s in the second, so a rate
    measured so far errs low, beyond the target (no unit of work foresees the load)."""
    trace = json.loads((TRACES / "combined-c2e001.json").read_text("utf-8"))
    assert trace["load"] == [3.7, 8.0]
    assert replay(trace) == {20: -41, 25: -23, 50: -35, 75: -2}

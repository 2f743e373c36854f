"""The time left of a model stage (``streamer.cli.time_left``) against a brute-force
reference, and the progress line of ``streamer run`` that shows it, drawn with an
injected clock (nothing waits, nothing is timed)."""

from __future__ import annotations

import io
import itertools

from hypothesis import given
from hypothesis import strategies as st

from streamer.cli.progress import RunProgress
from streamer.cli.time_left import MIN_ANSWERS, WINDOW, TimeLeft, seconds_left, spoken
from tests.test_progress import Clock


def reference(times: list[float], left: int) -> float | None:
    """Brute force: the mean of the intervals between consecutive answers among the last
    ``WINDOW + 1`` of them, times the answers left."""
    if left <= 0:
        return 0.0
    if len(times) <= MIN_ANSWERS:
        return None
    kept = times[max(0, len(times) - WINDOW - 1) :]
    intervals = [later - earlier for earlier, later in itertools.pairwise(kept)]
    if sum(intervals) <= 0:
        return None
    return left * sum(intervals) / len(intervals)


gaps = st.lists(st.integers(min_value=0, max_value=10_000), max_size=60)


def _times(steps: list[int]) -> list[float]:
    now, times = 1_000.0, []
    for step in steps:
        now += step / 8  # exact binary fractions: sums in any order are equal
        times.append(now)
    return times


@given(gaps, st.integers(min_value=-3, max_value=500))
def test_seconds_left_is_the_reference(steps: list[int], left: int) -> None:
    times = _times(steps)
    assert seconds_left(times, left) == reference(times, left)
    kept = TimeLeft()
    for when in times:
        kept.answered(when)
    assert kept.seconds(left) == reference(times, left)


@given(st.integers(min_value=0, max_value=40), st.integers(min_value=1, max_value=80))
def test_cache_hits_at_the_start_leave_the_window(hits: int, asked: int) -> None:
    """``hits`` answers at one instant (a rerun's cache hits), then answers every 8 s: once
    ``WINDOW`` answers came after them, the estimate is 8 s an answer left."""
    times = [50.0] * hits + [50.0 + 8 * (index + 1) for index in range(asked)]
    estimate = seconds_left(times, 10)
    if asked >= WINDOW:
        assert estimate == 80.0
    elif hits == 0 and asked <= MIN_ANSWERS:
        assert estimate is None
    if hits > 0 and asked == 0:
        assert estimate is None  # every answer so far at one instant


def test_spoken() -> None:
    assert [spoken(s) for s in (0.5, 59.9, 60, 61, 480, 3599, 3600, 3900)] == [
        "less than a minute left",
        "less than a minute left",
        "1 min left",
        "2 min left",
        "8 min left",
        "1 h left",
        "1 h left",
        "1 h 5 min left",
    ]


def test_the_run_line_shows_chunks_and_the_time_left() -> None:
    """Two lanes of 30 chunks, a chunk answered every 10 s per lane (5 s an answer): no
    estimate over the first answers, then the 60 answers' remainder at 5 s each."""
    stream, clock = io.StringIO(), Clock()
    progress = RunProgress(stream, clock)
    progress.stage("extract", 2, 5)
    lines = []
    for chunk in range(1, 31):
        for lane in ("spells", "npcs"):
            clock.now += 5
            progress.chunk(lane, chunk, 30)
            lines.append(stream.getvalue().rsplit("\r", 1)[1].removesuffix("\x1b[K"))
    assert lines[:2] == [
        "streamer: [2/5] extract spells: chunk 1 of 30",
        "streamer: [2/5] extract npcs: chunk 1 of 30",
    ]
    assert lines[2] == "streamer: [2/5] extract spells: chunk 2 of 30"  # two intervals
    assert lines[3] == "streamer: [2/5] extract npcs: chunk 2 of 30, 5 min left"  # 56 x 5 s
    assert lines[23] == "streamer: [2/5] extract npcs: chunk 12 of 30, 3 min left"  # 36 x 5 s
    assert lines[-2] == "streamer: [2/5] extract spells: chunk 30 of 30, less than a minute left"
    assert lines[-1] == "streamer: [2/5] extract npcs: chunk 30 of 30"
    progress.stage("normalize", 3, 5)
    clock.now += 5
    progress.chunk("spells", 1, 30)  # a new stage measures afresh
    assert stream.getvalue().endswith("\rstreamer: [3/5] normalize spells: chunk 1 of 30\x1b[K")

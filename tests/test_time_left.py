"""The time left of a model stage (``streamer.cli.time_left``) against a brute-force
reference, and the progress line of ``streamer run`` that shows it, drawn with an
injected clock (nothing waits, nothing is timed)."""

from __future__ import annotations

import io
import itertools

from hypothesis import given
from hypothesis import strategies as st

from streamer.cli.progress import RunProgress
from streamer.cli.time_left import MIN_CHUNKS, WINDOW, TimeLeft, seconds_left, spoken
from tests.test_progress import Clock

Event = tuple[str, int, int, float]  # lane ID, chunks it answered, chunks, when


def reference(times: list[float], left: float) -> float | None:
    """Brute force: the middle one (or the mean of the middle two) of the intervals
    between consecutive chunks reached among the last ``WINDOW + 1`` of them, sorted,
    times the chunks left."""
    if left <= 0:
        return 0.0
    if len(times) <= MIN_CHUNKS:
        return None
    kept = times[max(0, len(times) - WINDOW - 1) :]
    intervals = sorted(later - earlier for earlier, later in itertools.pairwise(kept))
    half, odd = divmod(len(intervals), 2)
    middle = intervals[half] if odd else (intervals[half - 1] + intervals[half]) / 2
    if middle <= 0:
        return None
    return left * middle


def reference_time_left(events: list[Event]) -> float | None:
    """Brute force over every answer so far: a chunk is reached when the most chunks any
    lane answered grows; none once every lane seen answered its last chunk."""
    answered: dict[str, int] = {}
    reached: list[float] = []
    finished = False
    for lane_id, done, total, when in events:
        answered[lane_id] = max(done, answered.get(lane_id, 0))
        reached += [when] * (max(answered.values()) - len(reached))
        finished = finished or all(count >= total for count in answered.values())
    if finished or not events:
        return None
    total = events[-1][2]
    left = sum(total - count for count in answered.values()) / len(answered)
    return reference(reached, left)


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
    assert seconds_left(times, left / 3) == reference(times, left / 3)


@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=80)),
        max_size=80,
    ),
    st.integers(min_value=1, max_value=12),
)
def test_time_left_is_the_reference(answers: list[tuple[int, int]], total: int) -> None:
    """Up to four lanes answering in any order (a lane past its last chunk starts again:
    a lane's second engine, or a rules lane writing its file after the model's)."""
    events: list[Event] = []
    counts = [0, 0, 0, 0]
    when = 50.0
    kept = TimeLeft()
    for lane, step in answers:
        counts[lane] = counts[lane] % total + 1
        when += step / 4
        events.append((f"lane-{lane}", counts[lane], total, when))
        kept.answered(*events[-1])
        assert kept.seconds() == reference_time_left(events)


def _chunks(start: float, chunks: range, costs: tuple[float, ...], total: int) -> list[Event]:
    """Every lane's answer of each chunk, lane by lane, each lane taking its cost."""
    events, when = [], start
    for chunk in chunks:
        for lane, cost in enumerate(costs):
            when += cost
            events.append((f"lane-{lane}", chunk, total, when))
    return events


@given(st.integers(min_value=0, max_value=30), st.integers(min_value=0, max_value=30))
def test_cache_hits_at_the_start_leave_the_window(hits: int, asked: int) -> None:
    """``hits`` chunks of three lanes at one instant (a rerun's cache hits), then chunks
    of 10 s (the first lane 8 s, the cached next lanes 1 s each): once more than
    ``WINDOW`` asked chunks have come, 10 s a chunk left."""
    total = hits + asked + 5
    events = _chunks(60.0, range(1, hits + 1), (0, 0, 0), total)
    events += _chunks(60.0, range(hits + 1, hits + asked + 1), (8, 1, 1), total)
    kept = TimeLeft()
    for event in events:
        kept.answered(*event)
    if asked > WINDOW:
        assert kept.seconds() == 50.0
    if asked == 0 or hits + asked <= MIN_CHUNKS:
        assert kept.seconds() is None  # every chunk so far at one instant, or too few


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


def _line(stream: io.StringIO) -> str:
    return stream.getvalue().rsplit("\r", 1)[1].removesuffix("\x1b[K")


def test_the_run_line_shows_chunks_and_the_time_left() -> None:
    """Three lanes over 20 chunks, asked lane by lane after a cold first request of 40 s: a
    chunk's first lane takes 24 s (it evaluates the units), its next two 3 s each (the
    server's prompt cache): 30 s a chunk, however unequal its answers."""
    stream, clock = io.StringIO(), Clock()
    progress = RunProgress(stream, clock)
    progress.stage("extract", 2, 5)
    clock.now += 16  # the cold first request: 40 s in all
    lines: list[str] = []
    for _, chunk, total, when in _chunks(clock.now, range(1, 21), (24, 3, 3), 20):
        clock.now = when
        lane = ("spells", "npcs", "places")[len(lines) % 3]
        progress.chunk(lane, chunk, total)
        lines.append(_line(stream))
    assert lines[:3] == [
        "streamer: [2/5] extract spells: chunk 1 of 20",
        "streamer: [2/5] extract npcs: chunk 1 of 20",
        "streamer: [2/5] extract places: chunk 1 of 20",
    ]
    # (18 + 19 + 19) / 3 chunks left at 30 s: 560 s; actual 6 + 18 x 30 = 546 s
    assert lines[3] == "streamer: [2/5] extract spells: chunk 2 of 20, 10 min left"
    # at every answer of chunk 12 and later, chunks left x 30 s
    assert lines[35] == "streamer: [2/5] extract places: chunk 12 of 20, 4 min left"
    assert lines[-3] == "streamer: [2/5] extract spells: chunk 20 of 20, less than a minute left"
    assert lines[-1] == "streamer: [2/5] extract places: chunk 20 of 20"
    clock.now += 1
    progress.chunk("spells", 1, 20)  # a rules lane writing its file: no estimate
    assert _line(stream) == "streamer: [2/5] extract spells: chunk 1 of 20"
    progress.stage("normalize", 3, 5)
    clock.now += 5
    progress.chunk("spells", 1, 30)  # a new stage measures afresh
    assert _line(stream) == "streamer: [3/5] normalize spells: chunk 1 of 30"

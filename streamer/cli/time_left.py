"""The time left of a model stage, from the rate its chunks came at.

The unit of work is a *chunk*, not an answer (one lane's of one chunk): asked lane by
lane, a chunk's first lane evaluates its units and its next lanes find them in the
server's prompt cache, so that answers cost unequally, in a pattern a window of answers
sees more or less of; asked for every lane at once (``requests: combined``), a chunk is
one request. Either way, the time between two chunks reached is one chunk's whole cost.
The stage's chunks reached are the most any lane has answered (a lane that fails stops
counting, the others go on); the time per chunk is the median of the last ``WINDOW``
intervals between the times that count grew (a median: a chunk slowed by a burst of
load elsewhere on the machine does not move it; replayed over real runs' times in
``tests/test_time_left_traces.py``). The clock starts at the first chunk reached, so
the run's first request (cold: the model loaded, the structured-output mode probed)
never counts; a burst of cache hits at the start (a rerun after Ctrl-C reads its cached
chunks first) is intervals of nothing, which give no estimate while they are half the
window and have left it once ``WINDOW`` asked chunks have come. The time left is the
chunks still to come (every lane's answers left, over the lanes) times the time per
chunk. No estimate before ``MIN_CHUNKS`` intervals, nor once every lane seen has answered
its last chunk (what answers after that, a rules lane writing its file, is a quick
local pass).
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from itertools import pairwise

WINDOW = 7
MIN_CHUNKS = 1


def seconds_left(
    times: list[float], left: float, window: int = WINDOW, min_chunks: int = MIN_CHUNKS
) -> float | None:
    """The seconds until ``left`` more chunks are reached, from the times (ascending) the
    chunks so far were reached at; ``None`` when there is no estimate yet."""
    if left <= 0:
        return 0.0
    if len(times) < min_chunks + 1:
        return None
    recent = times[-(window + 1) :]
    per_chunk = statistics.median(later - earlier for earlier, later in pairwise(recent))
    if per_chunk <= 0:
        return None
    return left * per_chunk


class TimeLeft:
    """The lanes' counts of chunks answered, and the times of the last ``window + 1``
    chunks reached."""

    def __init__(self, window: int = WINDOW, min_chunks: int = MIN_CHUNKS) -> None:
        self._times: deque[float] = deque(maxlen=window + 1)
        self._window = window
        self._min_chunks = min_chunks
        self._answered: dict[str, int] = {}  # lane ID -> the chunks it answered
        self._chunks = 0  # the chunks reached: the most any lane has answered
        self._total = 0
        self._finished = False  # every lane seen answered its last chunk

    def answered(self, lane_id: str, done: int, total: int, now: float) -> None:
        """Lane ``lane_id`` answered its ``done``-th chunk of ``total`` at ``now``."""
        self._answered[lane_id] = max(done, self._answered.get(lane_id, 0))
        self._total = total
        while self._chunks < done:
            self._chunks += 1
            self._times.append(now)
        self._finished = self._finished or min(self._answered.values()) >= total

    def seconds(self) -> float | None:
        """The seconds until every lane seen has answered every chunk."""
        if self._finished or not self._answered:
            return None
        left = sum(self._total - done for done in self._answered.values())
        return seconds_left(
            list(self._times), left / len(self._answered), self._window, self._min_chunks
        )


def spoken(seconds: float) -> str:
    """``8 min left``, ``1 h 5 min left`` (minutes rounded up), ``less than a minute left``."""
    if seconds < 60:
        return "less than a minute left"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"{minutes} min left"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min left" if minutes else f"{hours} h left"

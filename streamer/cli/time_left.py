"""The time left of a model stage, from the rate its answers came at.

Every chunk a lane completes is one *answer*; the stage's time left is the answers still
to come times the measured time per answer. That time is the mean interval between the
last ``WINDOW`` answers: the clock starts at the first answer, so the run's first request
(cold: the model loaded, the structured-output mode probed) never counts, and a burst of
cache hits at the start (a rerun after Ctrl-C reads its cached chunks first) leaves the
window once ``WINDOW`` asked answers have come. No estimate before ``MIN_ANSWERS``
answers after the first (a rate from one or two intervals is noise), nor while the
answers so far came at one instant (all cache hits).
"""

from __future__ import annotations

import math
from collections import deque

WINDOW = 16
MIN_ANSWERS = 3


def seconds_left(
    times: list[float], left: int, window: int = WINDOW, min_answers: int = MIN_ANSWERS
) -> float | None:
    """The seconds until ``left`` more answers, from the times (ascending) of the answers
    so far; ``None`` when there is no estimate yet."""
    if left <= 0:
        return 0.0
    if len(times) < min_answers + 1:
        return None
    recent = times[-(window + 1) :]
    span = recent[-1] - recent[0]
    if span <= 0:
        return None
    return left * span / (len(recent) - 1)


class TimeLeft:
    """The answers' times as they come (only the last ``window + 1`` are kept)."""

    def __init__(self, window: int = WINDOW, min_answers: int = MIN_ANSWERS) -> None:
        self._times: deque[float] = deque(maxlen=window + 1)
        self._window = window
        self._min_answers = min_answers

    def answered(self, now: float) -> None:
        self._times.append(now)

    def seconds(self, left: int) -> float | None:
        return seconds_left(list(self._times), left, self._window, self._min_answers)


def spoken(seconds: float) -> str:
    """``8 min left``, ``1 h 5 min left`` (minutes rounded up), ``less than a minute left``."""
    if seconds < 60:
        return "less than a minute left"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"{minutes} min left"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min left" if minutes else f"{hours} h left"

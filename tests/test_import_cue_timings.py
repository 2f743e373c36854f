"""Cue timings, read by the fast path for the usual form (``HH:MM:SS,mmm --> ...``) or
by the full pattern, against a reference read written here: the same times, or the same
refusal, for any line of timings."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.errors.types import SourceError
from streamer.importers import srt, webvtt
from streamer.importers.cues import Cue


def _digits(low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=low, max_size=high)


@st.composite
def timestamps(draw: st.DrawFn, separators: str) -> str:
    hours = draw(st.one_of(st.just(""), _digits(1, 3).map(lambda text: text + ":")))
    fraction = draw(
        st.one_of(st.just(""), st.tuples(st.sampled_from(separators), _digits(1, 4)).map("".join))
    )
    return f"{hours}{draw(_digits(1, 2))}:{draw(_digits(2, 2))}{fraction}"


def lines(separators: str) -> st.SearchStrategy[str]:
    return st.tuples(
        st.sampled_from(["", " "]),
        timestamps(separators),
        st.sampled_from([" --> ", "-->", " -> "]),
        timestamps(separators),
        st.sampled_from(["", " align:start", "\tX1:1", "x"]),
    ).map("".join)


def reference(line: str, srt_rules: bool) -> tuple[int, int] | None:
    """The times of ``line`` by the format's rules, read part by part."""
    stamp = (
        r"(?:(\d+):)?([0-5]?\d):([0-5]\d)(?:[,.](\d{1,3}))?"
        if srt_rules
        else r"(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})"
    )
    found = re.fullmatch(rf"[ \t]*{stamp}[ \t]*-->[ \t]*{stamp}(?:[ \t].*)?", line)
    if found is None:
        return None
    parts = found.groups()

    def ms(hours: str | None, minutes: str, seconds: str, fraction: str | None) -> int:
        millis = int((fraction or "0").ljust(3, "0"))
        return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + millis

    return ms(*parts[:4]), ms(*parts[4:])


def read(line: str, srt_rules: bool) -> tuple[int, int] | str | None:
    cue = Cue("here")
    try:
        if srt_rules:
            if not srt._timings(cue, line):
                return None
        else:
            parser = webvtt._Parser(False, False, None)
            parser.start_cue(1, line)
            assert parser.cue is not None
            cue = parser.cue
    except SourceError as error:
        return "invalid" if "invalid cue timings" in error.message else error.message
    return cue.start_ms, cue.end_ms


def expected(line: str, srt_rules: bool) -> tuple[int, int] | str | None:
    times = reference(line, srt_rules)
    if times is None:
        return None if srt_rules else "invalid"
    start, end = times
    if end > 2**53 - 1:
        return (
            "line 1 (cue 1): a cue time is too large"
            if not srt_rules
            else "here: a cue time is too large"
        )
    if start > end:
        where = "here" if srt_rules else "line 1 (cue 1)"
        return f"{where}: the cue ends before it starts"
    return times


@given(lines(",."))
def test_srt_timings_are_read_as_their_rules_say(line: str) -> None:
    assert read(line, True) == expected(line, True)


@given(lines("."))
def test_webvtt_timings_are_read_as_their_rules_say(line: str) -> None:
    assert read(line, False) == expected(line, False)


@pytest.mark.parametrize(
    ("line", "srt_rules", "times"),
    [
        ("01:02:03,456 --> 01:02:04,000", True, (3723456, 3724000)),
        ("01:02:03.456 --> 01:02:04.000 align:start", False, (3723456, 3724000)),
    ],
)
def test_the_usual_timings(line: str, srt_rules: bool, times: tuple[int, int]) -> None:
    assert read(line, srt_rules) == times

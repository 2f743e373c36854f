"""The package's one interval merge (``merged_runs``) against a brute-force reference: the
set of covered integers, cut into runs."""

from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.evidence.intervals import merged_runs

intervals = st.lists(
    st.tuples(st.integers(-5, 60), st.integers(0, 12)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=25,
)


def runs_of(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The reference: every covered integer, one by one, then the runs of consecutive ones."""
    points = {point for start, end in intervals for point in range(start, end + 1)}
    runs: list[tuple[int, int]] = []
    for point in sorted(points):
        if runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return runs


@given(intervals)
def test_merged_runs_equal_the_brute_force_runs(added: list[tuple[int, int]]) -> None:
    assert merged_runs(iter(added)) == runs_of(added)
    assert merged_runs(reversed(added)) == runs_of(added)  # in any order


def test_touching_intervals_merge_and_gaps_do_not() -> None:
    assert merged_runs([(8, 9), (4, 6), (1, 3), (2, 2)]) == [(1, 6), (8, 9)]
    assert merged_runs([]) == []

"""IntervalUnion against a brute-force set of covered integers, invariants checked after
every operation."""

from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.evidence.intervals import IntervalUnion

intervals = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 12)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=25,
)


def runs_of(points: set[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for point in sorted(points):
        if runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return runs


@given(intervals)
def test_union_equals_brute_force_runs(added: list[tuple[int, int]]) -> None:
    union = IntervalUnion()
    covered: set[int] = set()
    for start, end in added:
        union.add(start, end)
        union._check()
        covered.update(range(start, end + 1))
        assert list(union) == runs_of(covered)
        assert len(union) == len(runs_of(covered))
    for point in range(-1, 75):
        assert union.covers(point) == (point in covered)


def test_touching_intervals_merge_and_gaps_do_not() -> None:
    union = IntervalUnion()
    union.add(1, 3)
    union.add(4, 6)
    union.add(8, 9)
    union._check()
    assert list(union) == [(1, 6), (8, 9)]


def test_reversed_interval_is_refused() -> None:
    union = IntervalUnion()
    try:
        union.add(5, 4)
    except ValueError:
        return
    raise AssertionError("a reversed interval was accepted")


@given(intervals, intervals)
def test_bulk_update_equals_one_by_one(
    first: list[tuple[int, int]], then: list[tuple[int, int]]
) -> None:
    one_by_one, bulk = IntervalUnion(), IntervalUnion()
    for start, end in [*first, *then]:
        one_by_one.add(start, end)
    bulk.update(first)
    bulk._check()
    bulk.update(then)
    bulk._check()
    assert list(bulk) == list(one_by_one)

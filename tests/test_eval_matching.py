"""The matching of ``streamer eval`` against a brute-force reference: as many pairs as any
valid matching has, every pair valid (identities compatible, evidence within the
tolerance, each record in one pair at most), and the distances of evidence."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from streamer.evaluation.identity import Identity
from streamer.evaluation.matching import Item, distance, match_lane, maximum_matching

spans = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 4)).map(lambda p: (p[0], p[0] + p[1])),
    min_size=1,
    max_size=2,
)
identities = st.builds(
    Identity,
    st.tuples(st.sampled_from(["Blur", "Haste"])),
    st.tuples(st.sampled_from([None, "Caleb", "Fjord"])),
)


def items(draw: st.DrawFn, size: int) -> list[Item]:
    drawn = draw(st.lists(st.tuples(identities, spans), max_size=size))
    return [Item(index, identity, tuple(cited)) for index, (identity, cited) in enumerate(drawn)]


def gap(mine: Sequence[tuple[int, int]], theirs: Sequence[tuple[int, int]]) -> int:
    """Units between two sets of ranges, unit by unit."""
    return min(
        abs(a - b)
        for first, last in mine
        for other_first, other_last in theirs
        for a in range(first, last + 1)
        for b in range(other_first, other_last + 1)
    )


def can_match(one: Item, other: Item, tolerance: int) -> bool:
    same = one.identity.key == other.identity.key
    loose = all(
        a is None or b is None or a == b
        for a, b in zip(one.identity.loose, other.identity.loose, strict=True)
    )
    return same and loose and gap(one.spans, other.spans) <= tolerance


def brute_maximum(published: list[Item], expected: list[Item], tolerance: int) -> int:
    def best(at: int, used: frozenset[int]) -> int:
        if at == len(published):
            return 0
        found = best(at + 1, used)
        for other in expected:
            if other.index not in used and can_match(published[at], other, tolerance):
                found = max(found, 1 + best(at + 1, used | {other.index}))
        return found

    return best(0, frozenset())


@given(st.data(), st.integers(0, 6))
def test_the_matching_is_maximum_and_valid(data: st.DataObject, tolerance: int) -> None:
    published = data.draw(st.composite(lambda draw: items(draw, 6))())
    expected = data.draw(st.composite(lambda draw: items(draw, 6))())
    pairs = maximum_matching(published, expected, tolerance)
    assert len(pairs) == brute_maximum(published, expected, tolerance)
    assert len({pair.expected for pair in pairs}) == len({pair.published for pair in pairs})
    assert len({pair.expected for pair in pairs}) == len(pairs)
    for pair in pairs:
        one, other = published[pair.published], expected[pair.expected]
        assert can_match(one, other, tolerance)
        assert pair.distance == gap(one.spans, other.spans)


@given(spans, spans)
def test_the_distance_is_the_fewest_units_between_two_ranges(
    mine: list[tuple[int, int]], theirs: list[tuple[int, int]]
) -> None:
    assert distance(mine, theirs) == gap(mine, theirs)


def test_optional_records_set_aside_what_they_match_and_are_never_missing() -> None:
    blur = Identity(("Blur",), (None,))
    published = [Item(0, blur, ((1, 1),)), Item(1, blur, ((10, 10),)), Item(2, blur, ((20, 20),))]
    expected = [Item(0, blur, ((1, 2),)), Item(1, blur, ((11, 11),)), Item(2, blur, ((40, 40),))]
    match = match_lane(published, expected, lambda index: index > 0, 3)
    assert [(pair.published, pair.expected, pair.distance) for pair in match.pairs] == [(0, 0, 0)]
    assert [(pair.published, pair.expected) for pair in match.set_aside] == [(1, 1)]
    assert (match.spurious, match.missing) == ((2,), ())

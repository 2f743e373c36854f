"""The identity rules against a brute-force reference: pairwise overlap, connected
components by repeated merging, and the documented choices, on random candidates."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from streamer.framework.json.canonical import canonical
from streamer.framework.names import name_key
from streamer.normalization import collapse
from streamer.normalization.collapse import Grounded, Ref


def ref(start: int, end: int) -> Ref:
    return Ref(start, end, f"u{start}", f"u{end}")


refs = st.tuples(st.integers(0, 30), st.integers(0, 6)).map(lambda t: ref(t[0], t[0] + t[1]))
members = st.fixed_dictionaries(
    {"spell": st.sampled_from(["Fireball", "Shield"]), "caster": st.sampled_from([None, "Vex"])}
)


@st.composite
def candidates(draw: Any, single: bool = False) -> list[Grounded]:
    count = draw(st.integers(0, 12))
    out = []
    for line in range(count):
        cited = [draw(refs)] if single else draw(st.lists(refs, min_size=1, max_size=3))
        drawn = draw(members)
        identity = {
            **drawn,
            "caster": None if drawn["caster"] is None else name_key(drawn["caster"]),
        }
        out.append(Grounded(line + 2, drawn, collapse.distinct_refs(cited), identity))
    return out


def overlap(a: Grounded, b: Grounded) -> bool:
    return any(x.start <= y.end and y.start <= x.end for x in a.refs for y in b.refs)


def brute_components(items: list[Grounded]) -> list[list[Grounded]]:
    """Merge groups while any two have equal members and overlapping references."""
    groups = [[item] for item in items]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if groups[i][0].identity == groups[j][0].identity and any(
                    overlap(a, b) for a in groups[i] for b in groups[j]
                ):
                    groups[i] += groups.pop(j)
                    merged = True
                    break
            if merged:
                break
    return groups


def published(group: list[Grounded]) -> dict[str, Any]:
    """The members a record publishes: its candidate cited first, then smallest spelling."""
    first = min(group, key=lambda item: (item.refs[0], repr(sorted(item.members.items(), key=str))))
    return min(
        (item.members for item in group if item.refs[0] == first.refs[0]),
        key=canonical,
    )


def as_set(groups: list[collapse.Group]) -> list[tuple[Any, ...]]:
    return sorted((repr(sorted(g.members.items(), key=str)), g.refs, g.lines) for g in groups)


@given(candidates())
def test_occurrences_are_the_overlap_components_with_the_union_of_references(
    items: list[Grounded],
) -> None:
    expected = []
    for component in brute_components(items):
        union = tuple(sorted({r for item in component for r in item.refs}))
        expected.append(
            collapse.Group(component[0].members, union, tuple(sorted(i.line for i in component)))
        )
    found = collapse.occurrences(items)
    assert as_set(found) == as_set(expected)
    for group in found:  # references distinct and in position order, never widened
        assert list(group.refs) == sorted(set(group.refs))
    assert found == collapse.occurrences(list(reversed(items)))  # order does not matter


@given(candidates(single=True), st.randoms(use_true_random=False))
def test_spans_are_the_union_of_each_component_first_start_to_last_end(
    items: list[Grounded], shuffler: Any
) -> None:
    expected = []
    for group in brute_components(items):
        covered = {unit for item in group for r in item.refs for unit in range(r.start, r.end + 1)}
        low, high = min(covered), max(covered)
        assert covered == set(range(low, high + 1))  # the fragments chain: no gap, no widening
        expected.append(
            collapse.Group(
                group[0].members, (ref(low, high),), tuple(sorted(i.line for i in group))
            )
        )
    found = collapse.spans(items)
    assert as_set(found) == as_set(expected)
    shuffled = list(items)
    shuffler.shuffle(shuffled)
    assert found == collapse.spans(shuffled)


names = st.sampled_from(
    ["Brenna", "brenna", "BRENNA ", "Kima", "kima", "Vex\u2019ahlia", "vex'ahlia"]
)


@given(st.lists(st.tuples(names, st.lists(refs, min_size=1, max_size=2)), max_size=10))
def test_the_registry_has_one_record_per_name_key_with_all_references(drawn: list[Any]) -> None:
    items = [
        Grounded(line + 2, {"name": name}, collapse.distinct_refs(cited))
        for line, (name, cited) in enumerate(drawn)
    ]
    found = collapse.registry(items, lambda item: name_key(item.members["name"]))
    keys = {name_key(item.members["name"]) for item in items}
    assert sorted(name_key(g.members["name"]) for g in found) == sorted(keys)
    for group in found:
        same = [
            item
            for item in items
            if name_key(item.members["name"]) == name_key(group.members["name"])
        ]
        assert group.refs == tuple(sorted({r for item in same for r in item.refs}))
        first = min(same, key=lambda item: (item.refs[0], item.key, item.line))
        assert group.members == first.members
    assert found == collapse.registry(
        list(reversed(items)), lambda item: name_key(item.members["name"])
    )


def swept_clusters(items: list[Grounded], window: int) -> list[list[Grounded]]:
    """The sweep of the nearby rule, comparing each candidate with every cluster made so
    far (most recently joined first): the clusters in the order they were last joined."""
    clusters: list[tuple[dict[str, Any], int, list[Grounded]]] = []
    for item in sorted(items, key=lambda item: (item.refs[0], item.spelling)):
        known = {k: v for k, v in (item.identity or {}).items() if k == "caster" and v is not None}
        chosen = None
        for index in reversed(range(len(clusters))):
            values, reach, _ = clusters[index]
            if all(values.get(k, v) == v for k, v in known.items()) and (
                item.refs[0].start <= reach + window
            ):
                chosen = index
                break
        if chosen is None:
            clusters.append((known, item.refs[-1].end, [item]))
            continue
        values, reach, members = clusters.pop(chosen)
        reach = max(reach, *(r.end for r in item.refs))
        clusters.append(({**values, **known}, reach, [*members, item]))
    return [members for _, _, members in clusters]


many = st.lists(
    st.tuples(
        st.lists(refs, min_size=1, max_size=3),
        st.sampled_from(["Fireball", "Shield"]),
        st.sampled_from([None, "Vex", "Pike"]),
    ),
    max_size=40,
)


@given(many, st.integers(0, 4))
def test_nearby_keeps_the_clusters_of_the_sweep_over_every_cluster(
    drawn: list[Any], window: int
) -> None:
    """Closing the clusters out of reach changes nothing: the same records, in the same
    order, as comparing every candidate with every cluster."""
    items = []
    for line, (cited, spell, caster) in enumerate(drawn):
        members = {"spell": spell, "caster": caster}
        identity = {**members, "caster": None if caster is None else name_key(caster)}
        items.append(Grounded(line + 2, members, collapse.distinct_refs(cited), identity))
    found = collapse.nearby(items, window, ("caster",))
    expected = []
    for spell in ("Fireball", "Shield"):
        same = [item for item in items if item.members["spell"] == spell]
        for component in swept_clusters(same, window):
            union = tuple(sorted({r for item in component for r in item.refs}))
            assert union == collapse.distinct_refs([r for item in component for r in item.refs])
            expected.append(sorted(item.line for item in component))
    assert sorted(list(group.lines) for group in found) == sorted(expected)
    assert len(found) == len(expected)

"""The ``nearby`` identity rule of ``dnd/spell-casts``: one cast, one record."""

from __future__ import annotations

from typing import Any

from streamer.domain.dnd.normalization_specs import CAST_WINDOW_UNITS, SPELL_CASTS
from streamer.framework.kinds.normalization_spec import Collapse
from streamer.normalization.collapse import Grounded, Ref, nearby


def cast(line: int, spell: str, caster: str | None, *positions: int) -> Grounded:
    members: dict[str, Any] = {"spell": spell, "caster": caster}
    refs = tuple(Ref(p, p, f"u{p}", f"u{p}") for p in positions)
    identity = {"spell": spell, "caster": None if caster is None else caster.lower()}
    return Grounded(line, members, refs, identity)


def groups(*items: Grounded) -> list[tuple[str, str | None, list[int], tuple[int, ...]]]:
    found = nearby(items, CAST_WINDOW_UNITS, ("caster",))
    return [
        (g.members["spell"], g.members["caster"], [r.start for r in g.refs], g.lines) for g in found
    ]


def test_the_spell_casts_kind_declares_it() -> None:
    assert SPELL_CASTS.collapse is Collapse.NEARBY
    assert (SPELL_CASTS.window_units, SPELL_CASTS.optional_members) == (5, ("caster",))


def test_a_declaration_and_its_narration_are_one_record_naming_the_caster() -> None:
    assert groups(cast(1, "Slow", None, 13), cast(2, "Slow", "Vex", 10)) == [
        ("Slow", "Vex", [10, 13], (1, 2))
    ]


def test_the_window_is_five_units_from_the_reach_of_the_cast() -> None:
    assert groups(cast(1, "Slow", None, 10), cast(2, "Slow", None, 15)) == [
        ("Slow", None, [10, 15], (1, 2))
    ]
    assert groups(cast(1, "Slow", None, 10), cast(2, "Slow", None, 16)) == [
        ("Slow", None, [10], (1,)),
        ("Slow", None, [16], (2,)),
    ]
    # a chain: each within five units of the reach of the ones before it
    assert groups(*(cast(i, "Slow", None, 10 + 5 * i) for i in range(3)))[0][2] == [10, 15, 20]


def test_other_casters_and_other_spells_stay_apart() -> None:
    assert groups(
        cast(1, "Slow", "Vex", 10),
        cast(2, "Slow", "Grog", 11),
        cast(3, "Haste", "Vex", 11),
        cast(4, "Slow", None, 12),  # compatible with both: the most recent cluster
        cast(5, "Slow", "vex", 13),  # the same caster by identity
    ) == [
        ("Slow", "Vex", [10, 13], (1, 5)),
        ("Slow", "Grog", [11, 12], (2, 4)),
        ("Haste", "Vex", [11], (3,)),
    ]


def test_the_order_of_the_candidates_does_not_matter() -> None:
    items = [cast(1, "Slow", None, 12), cast(2, "Slow", "Vex", 10), cast(3, "Slow", "Vex", 30)]
    assert groups(*items) == groups(*reversed(items))

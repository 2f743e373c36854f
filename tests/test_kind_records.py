"""The D&D record declarations against the contract table (``design/contract.md``),
stated again here by hand as the reference: every planted defect gives its exact,
content-safe message, and for random values the declaration accepts exactly what the
reference accepts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.domain.dnd import KINDS
from streamer.framework.kinds.records import RecordError

KIND = {kind.name: kind for kind in KINDS}
REF = {"start_unit_id": "u1", "end_unit_id": "u2"}

# The contract table: member -> what it accepts.
NON_EMPTY = "non-empty string"
NULLABLE = "non-empty string or null"
REFS = "non-empty list of source references"
CONTRACT: dict[str, dict[str, str]] = {
    "dnd/spell-casts": {
        "spell_cast_id": NON_EMPTY,
        "spell": NON_EMPTY,
        "caster": NULLABLE,
        "source_refs": REFS,
    },
    "dnd/npcs": {"npc_id": NON_EMPTY, "name": NON_EMPTY, "source_refs": REFS},
    "dnd/places": {"place_id": NON_EMPTY, "name": NON_EMPTY, "source_refs": REFS},
    "dnd/npc-interactions": {"interaction_id": NON_EMPTY, "npc": NON_EMPTY, "source_refs": REFS},
    "dnd/combat-turns": {
        "turn_id": NON_EMPTY,
        "combatant": NON_EMPTY,
        "round": "integer >= 1 or null",
        "source_refs": REFS,
    },
    "dnd/item-events": {
        "item_event_id": NON_EMPTY,
        "item": NON_EMPTY,
        "event": "event",
        "holder": NULLABLE,
        "source_refs": REFS,
    },
    "dnd/scene-descriptions": {
        "scene_id": NON_EMPTY,
        "location": NULLABLE,
        "source_ref": "source reference",
    },
    "dnd/party-roster": {"player": NON_EMPTY, "character": NON_EMPTY},
}
GOOD = {
    NON_EMPTY: "x",
    NULLABLE: None,
    REFS: [REF],
    "integer >= 1 or null": 2,
    "event": "used",
    "source reference": REF,
}
ID_MEMBER = {
    "dnd/spell-casts": "spell_cast_id",
    "dnd/npcs": "npc_id",
    "dnd/places": "place_id",
    "dnd/npc-interactions": "interaction_id",
    "dnd/combat-turns": "turn_id",
    "dnd/item-events": "item_event_id",
    "dnd/scene-descriptions": "scene_id",
    "dnd/party-roster": None,
}


def _reference_ok(value: Any) -> bool:
    return (
        type(value) is dict
        and set(value) == {"start_unit_id", "end_unit_id"}
        and all(type(v) is str and v for v in value.values())
    )


def accepts(rule: str, value: Any) -> bool:
    """The brute-force reference: the contract's rule, written out."""
    if rule == NON_EMPTY:
        return type(value) is str and value != ""
    if rule == NULLABLE:
        return value is None or (type(value) is str and value != "")
    if rule == "integer >= 1 or null":
        return value is None or (type(value) is int and value >= 1)
    if rule == "event":
        return value in ("acquired", "lost", "used", "transferred") and type(value) is str
    if rule == "source reference":
        return _reference_ok(value)
    assert rule == REFS
    return type(value) is list and len(value) > 0 and all(_reference_ok(v) for v in value)


def good_record(name: str) -> dict[str, Any]:
    return {member: GOOD[rule] for member, rule in CONTRACT[name].items()}


def test_the_declarations_are_the_contract_table() -> None:
    assert sorted(KIND) == sorted(CONTRACT)
    for name, kind in KIND.items():
        assert kind.record_schema()["required"] == list(CONTRACT[name])
        assert kind.id_member == ID_MEMBER[name]
        model = [m for m in CONTRACT[name] if m != ID_MEMBER[name]]
        assert kind.model_record_schema()["required"] == model


MESSAGES = [
    ("dnd/spell-casts", "spell", "", "$.records[3].spell must be a non-empty string"),
    ("dnd/spell-casts", "spell", 7, "$.records[3].spell must be a non-empty string"),
    ("dnd/spell-casts", "caster", "", "$.records[3].caster must be a non-empty string or null"),
    (
        "dnd/spell-casts",
        "source_refs",
        [],
        "$.records[3].source_refs must be a non-empty list of source references",
    ),
    (
        "dnd/spell-casts",
        "source_refs",
        {},
        "$.records[3].source_refs must be a non-empty list of source references",
    ),
    (
        "dnd/spell-casts",
        "source_refs",
        ["u1"],
        "$.records[3].source_refs[0] must be an object with start_unit_id and end_unit_id",
    ),
    (
        "dnd/spell-casts",
        "source_refs",
        [REF, {"start_unit_id": "u1"}],
        "$.records[3].source_refs[1].end_unit_id is required",
    ),
    (
        "dnd/spell-casts",
        "source_refs",
        [{**REF, "note": 1}],
        '$.records[3].source_refs[0]: unknown member "note"',
    ),
    (
        "dnd/spell-casts",
        "source_refs",
        [{**REF, "end_unit_id": ""}],
        "$.records[3].source_refs[0].end_unit_id must be a non-empty string",
    ),
    ("dnd/combat-turns", "round", 0, "$.records[3].round must be an integer >= 1 or null"),
    ("dnd/combat-turns", "round", True, "$.records[3].round must be an integer >= 1 or null"),
    ("dnd/combat-turns", "round", 1.5, "$.records[3].round must be an integer >= 1 or null"),
    (
        "dnd/item-events",
        "event",
        "stolen",
        "$.records[3].event must be one of: acquired, lost, transferred, used",
    ),
    (
        "dnd/scene-descriptions",
        "source_ref",
        [REF],
        "$.records[3].source_ref must be an object with start_unit_id and end_unit_id",
    ),
    ("dnd/party-roster", "player", None, "$.records[3].player must be a non-empty string"),
]


@pytest.mark.parametrize(("name", "member", "value", "message"), MESSAGES)
def test_each_rule_has_its_message(name: str, member: str, value: Any, message: str) -> None:
    record = {**good_record(name), member: value}
    with pytest.raises(RecordError) as caught:
        KIND[name].parse_record(record, "$.records[3]")
    assert caught.value.message == message


def test_object_members_and_shape_messages() -> None:
    kind = KIND["dnd/npcs"]
    with pytest.raises(
        RecordError, match=r"^\$\.records\[0\] must be an object with npc_id, name and source_refs$"
    ):
        kind.parse_record(["x"], "$.records[0]")
    with pytest.raises(RecordError, match=r'^\$\.records\[0\]: unknown member "secret\\nline"$'):
        kind.parse_record({**good_record("dnd/npcs"), "secret\nline": 1}, "$.records[0]")
    record = good_record("dnd/npcs")
    del record["name"]
    with pytest.raises(RecordError, match=r"^\$\.records\[0\]\.name is required$"):
        kind.parse_record(record, "$.records[0]")


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.sampled_from(["", "x", "used", "MARKER"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["start_unit_id", "end_unit_id", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)
CANDIDATE_VALUES = JSON | st.just([REF]) | st.just(REF) | st.just([REF, "MARKER"])


@given(name=st.sampled_from(sorted(CONTRACT)), data=st.data())
def test_the_declaration_accepts_exactly_what_the_contract_accepts(
    name: str, data: st.DataObject
) -> None:
    record = good_record(name)
    member = data.draw(st.sampled_from(sorted(record)))
    value = data.draw(CANDIDATE_VALUES)
    record[member] = value
    expected = accepts(CONTRACT[name][member], value)
    try:
        parsed = KIND[name].parse_record(record, "$")
    except RecordError as error:
        assert not expected, error.message
        assert error.path.startswith(f"$.{member}")
        assert "MARKER" not in error.message and "used" not in error.message.split(" must")[0]
    else:
        assert expected
        assert KIND[name].record_to_json(parsed) == record

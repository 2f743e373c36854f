"""One "exactly these members" check, one message style, wherever objects are checked."""

from __future__ import annotations

import pytest

from streamer.framework.errors import InputError, LaneOutputError, SourceError
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.members import check_members
from streamer.framework.source.reference import parse_source_reference
from streamer.framework.source.unit_rules import validate_unit


def message(call: object, *args: object) -> str:
    with pytest.raises(InputError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value.message


def test_check_members() -> None:
    check_members({"a": 1}, "$.x", required=("a",), optional=("b",))
    assert (
        message(lambda: check_members({"a": 1, "zz": 2, "c": 3}, "$.x", required=("a",)))
        == '$.x: unknown member "c"'
    )
    assert message(lambda: check_members({}, "$.x", required=("b", "a"))) == "$.x.b is required"


def test_every_checker_speaks_the_same_way() -> None:
    assert message(parse_source_reference, {"start_unit_id": "a", "x": 1}, "$.r", SourceError) == (
        '$.r: unknown member "x"'
    )
    assert (
        message(parse_source_reference, {"start_unit_id": "a"}, "$.r")
        == "$.r.end_unit_id is required"
    )
    assert (
        message(validate_unit, {"unit_id": "a", "x": 1}, "line 2") == 'line 2: unknown member "x"'
    )
    assert (
        message(
            validate_unit,
            {"unit_id": "a", "kind": "k", "text": "", "metadata": {"x": 1}},
            "$.units[0]",
        )
        == '$.units[0].metadata: unknown member "x"'
    )
    from streamer.api.config import default_registry

    kind = default_registry().get("dnd/npcs", where="test")
    assert message(parse_lane_output, {"lane_id": "npcs", "x": 1}, "npcs", kind, "lane npcs") == (
        'lane npcs: $: unknown member "x"'
    )
    with pytest.raises(LaneOutputError, match=r"^lane npcs: \$\.artifact_kind is required$"):
        parse_lane_output({"lane_id": "npcs"}, "npcs", kind, "lane npcs")

"""One "exactly these members" check (``framework.json.members``), one message style, for the
source units, their metadata and lane outputs' envelopes too."""

from __future__ import annotations

from typing import Any

import pytest

from streamer.framework.errors.types import InputError, LaneOutputError
from streamer.framework.kinds.lane_outputs import parse_lane_output
from streamer.framework.source.unit_rules import validate_unit


def message(call: Any, *args: Any) -> str:
    with pytest.raises(InputError) as caught:
        call(*args)
    return caught.value.message


def test_every_checker_speaks_the_same_way() -> None:
    assert (
        message(validate_unit, {"unit_id": "a", "x": 1}, "line 2") == 'line 2: unknown member "x"'
    )
    unit = {"unit_id": "a", "kind": "k", "text": "", "metadata": {"x": 1}}
    assert message(validate_unit, unit, "$.units[0]") == '$.units[0].metadata: unknown member "x"'
    from streamer.api.config import default_registry

    kind = default_registry().get("dnd/npcs", where="test")
    assert message(parse_lane_output, {"lane_id": "npcs", "x": 1}, "npcs", kind, "lane npcs") == (
        'lane npcs: $: unknown member "x"'
    )
    with pytest.raises(LaneOutputError, match=r"^lane npcs: \$\.artifact_kind is required$"):
        parse_lane_output({"lane_id": "npcs"}, "npcs", kind, "lane npcs")

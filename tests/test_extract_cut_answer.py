"""What an answer holds when the server let it out of JSON's strict form or cut it: a raw
control character inside a string (llama-cpp-python's grammar allows one) is read as that
character; of a combined answer cut at ``max_tokens``, the members written whole before
the cut are kept, and only the others' lanes are asked again alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer.extraction.combined import split_answer
from streamer.extraction.cut_answer import complete_members
from streamer.extraction.responses import TRUNCATED, InvalidAnswer, decode_answer
from tests.extract_support import candidates, write_config
from tests.fake_openai import Reply, Request, fake_server
from tests.test_extract_combined import (
    IDS,
    LANES,
    answers,
    asked_lane,
    extract,
    files,
    is_combined,
    kinds,
    lane,
    part_of,
    problems,
)

pytestmark = pytest.mark.usefixtures("sleeps")

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
GAPS = st.sampled_from(["", " ", "\n  ", "\t"])


@given(
    st.lists(
        st.tuples(st.text(max_size=4), JSON_VALUES, GAPS, GAPS),
        max_size=4,
        unique_by=lambda m: m[0],
    ),
    st.data(),
)
def test_complete_members_are_those_whose_value_ended_before_the_cut(
    members: list[tuple[str, Any, str, str]], data: st.DataObject
) -> None:
    # the object written member by member, noting where each member's closing "," or "}"
    # falls: a cut after it leaves the member whole, a cut before it does not
    text = "{"
    closed: list[int] = []
    for index, (key, value, before, after) in enumerate(members):
        text += before + json.dumps(key) + after + ":" + before + json.dumps(value) + after
        closed.append(len(text))
        text += "," if index < len(members) - 1 else "}"
    if not members:
        text += "}"
    cut = data.draw(st.integers(0, len(text)))
    expected = {
        key: value for (key, value, _, _), end in zip(members, closed, strict=True) if end < cut
    }
    assert complete_members(text[:cut]) == expected
    assert complete_members(text) == {key: value for key, value, _, _ in members}


def test_a_number_cut_short_or_a_member_without_its_value_is_not_read() -> None:
    assert complete_members('{"a": 12') == {}
    assert complete_members('{"a": 12, "b"') == {"a": 12}
    assert complete_members('{"a": 12, "b": ') == {"a": 12}
    assert complete_members('["a", 1]') == {}
    assert complete_members("") == {}


def test_a_raw_control_character_in_a_string_is_read_and_nan_is_not_json() -> None:
    assert decode_answer('{"records": [{"spell": "Fire\nbolt\t"}]}') == {
        "records": [{"spell": "Fire\nbolt\t"}]
    }
    for content in ('{"a": NaN}', '{"a": -Infinity}', '{"a": 1', "{'a': 1}"):
        with pytest.raises(InvalidAnswer, match=r"^\$ is not valid JSON$"):
            decode_answer(content)


def test_a_cut_combined_answer_keeps_the_members_written_whole() -> None:
    parts = kinds("dnd/spell-casts", "dnd/npcs", "dnd/item-events")
    cut = '{"spells": {"records": []}, "npcs": {"records": [3]}, "items": {"records": [{"it'
    assert problems(split_answer(parts, cut, "length")) == {
        "spells": "ok",
        "npcs": "$.records[0] must be an object with name and source_refs",
        "items": TRUNCATED,
    }
    whole = '{"spells": {"records": []}, "items": {"records": []}}'
    assert problems(split_answer(parts, whole, "length"))["npcs"] == TRUNCATED
    refs = '"source_refs": [{"start_unit_id": "t1", "end_unit_id": "t1"}]'
    raw = (
        '{"spells": {"records": [{"spell": "Fire\nbolt", "caster": null, ' + refs + "}]},"
        '\n"npcs": {"records": []}, "items": {"records": []}}'
    )
    split = split_answer(parts, raw, "stop")
    assert problems(split) == {lane_id: "ok" for lane_id in IDS}
    assert [record["spell"] for record in split["spells"]] == ["Fire\nbolt"]  # type: ignore[union-attr]


def test_a_cut_combined_answer_asks_again_only_the_lanes_it_cut(tmp_path: Path) -> None:
    def script(request: Request) -> Reply:
        if is_combined(request):
            whole = json.dumps({lane_id: part_of(request, lane_id) for lane_id in IDS[:2]})
            return Reply(
                content=whole[:-1] + ', "items": {"records": [{"item": "', finish_reason="length"
            )
        return answers(request)

    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url, lanes=LANES, requests="combined")
        result = extract(config, tmp_path / "out")
    alone = [asked_lane(request) for request in server.requests if not is_combined(request)]
    chunks = len(server.requests) - len(alone)
    assert alone == ["items"] * chunks
    spells, items = lane(result, "spells"), lane(result, "items")
    assert (spells["truncated"], spells["requests"], spells["retries"]) == (0, 0, 0)
    assert (items["truncated"], items["requests"], items["retries"]) == (chunks, chunks, chunks)
    assert len(candidates(tmp_path / "out" / "spells.jsonl")) == chunks + 1
    with fake_server(answers) as server:
        (tmp_path / "fresh").mkdir()
        extract(write_config(tmp_path / "fresh", server.base_url, lanes=LANES), tmp_path / "f")
    assert files(tmp_path / "out") == files(tmp_path / "f")

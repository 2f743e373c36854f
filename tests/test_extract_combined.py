"""``requests: combined`` against the loopback fake server: one request per chunk for
every model lane, split back into each lane's candidates file; a lane whose part is
invalid asked again alone; the cache, a resumed run, a cut answer, the schema."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from streamer import api
from streamer.api.config import default_registry
from streamer.extraction.combined import (
    COMBINED_INTRO,
    LAYOUT,
    Part,
    combined_format,
    combined_messages,
    combined_schema,
    split_answer,
)
from streamer.extraction.combined_run import asked_lanes, shares
from streamer.extraction.requests import ASK_SHORTER
from streamer.extraction.response_schema import grammar_schema
from streamer.extraction.responses import TRUNCATED, InvalidAnswer
from streamer.framework.kinds.extraction_spec import ShownUnit
from tests.extract_support import (
    SESSION,
    candidates,
    first_units,
    spell_answer,
    write_config,
)
from tests.fake_openai import Reply, Request, fake_server
from tests.support import invoke
from tests.test_extract import cache_entries, extract_process

pytestmark = pytest.mark.usefixtures("sleeps")

CHUNKS = len(first_units())
LANES = [
    {"id": "spells", "artifact_kind": "dnd/spell-casts"},
    {"id": "npcs", "artifact_kind": "dnd/npcs"},
    {"id": "items", "artifact_kind": "dnd/item-events"},
]
IDS = [lane["id"] for lane in LANES]
EMPTY: dict[str, list[Any]] = {"records": []}


def extract(config: Path, out: Path, **options: Any) -> api.ExtractResult:
    return api.extract(api.load_config(config), SESSION, out, **options)


def lane(result: api.ExtractResult, lane_id: str) -> dict[str, Any]:
    (found,) = [item for item in result.lanes if item["lane_id"] == lane_id]
    return found


def is_combined(request: Request) -> bool:
    return COMBINED_INTRO in request.units


def asked_lane(request: Request) -> str:
    """The lane a per-lane request asks (its schema's name is its kind's)."""
    name = request.body["response_format"]["json_schema"]["name"]
    kinds = {kind.schema.name: kind.name for kind in default_registry()}
    (lane_id,) = [each["id"] for each in LANES if each["artifact_kind"] == kinds[name]]
    return lane_id


def part_of(request: Request, lane_id: str) -> dict[str, Any]:
    """The answer every test gives a lane: a spell cast citing the chunk's first unit for
    ``spells``, nothing for the others."""
    return json.loads(spell_answer(request)) if lane_id == "spells" else EMPTY


def answers(request: Request) -> Reply:
    """A valid answer to a combined or a per-lane request."""
    if is_combined(request):
        return Reply(content=json.dumps({lane_id: part_of(request, lane_id) for lane_id in IDS}))
    return Reply(content=json.dumps(part_of(request, asked_lane(request))))


def files(out: Path) -> dict[str, bytes]:
    return {lane_id: (out / f"{lane_id}.jsonl").read_bytes() for lane_id in IDS}


def test_one_request_per_chunk_split_into_the_per_lane_bytes(tmp_path: Path) -> None:
    with fake_server(answers) as server:
        (tmp_path / "a").mkdir()
        config = write_config(tmp_path / "a", server.base_url, lanes=LANES, requests="per-lane")
        extract(config, tmp_path / "a" / "out")
        per_lane = len(server.requests)
        (tmp_path / "b").mkdir()
        config = write_config(tmp_path / "b", server.base_url, lanes=LANES)  # the default
        result = extract(config, tmp_path / "b" / "out")
        combined = server.requests[per_lane:]
    assert per_lane == 3 * CHUNKS
    assert len(combined) == CHUNKS and all(is_combined(request) for request in combined)
    assert files(tmp_path / "b" / "out") == files(tmp_path / "a" / "out")
    assert len(candidates(tmp_path / "b" / "out" / "spells.jsonl")) == 1 + CHUNKS
    body = combined[0].body
    assert body["max_tokens"] == 3 * 1024
    assert body["response_format"]["json_schema"]["schema"]["required"] == IDS
    spells = lane(result, "spells")
    assert (spells["requests"], spells["combined_requests"], spells["retries"]) == (0, CHUNKS, 0)
    assert sum(lane(result, each)["prompt_tokens"] for each in IDS) == 100 * CHUNKS
    assert sum(lane(result, each)["completion_tokens"] for each in IDS) == 10 * CHUNKS
    assert result.receipt()["status"] == "ok"


def test_a_lane_whose_part_is_invalid_is_asked_again_alone(tmp_path: Path) -> None:
    first = first_units()[0]

    def script(request: Request) -> Reply:
        if is_combined(request) and request.first_unit == first:
            parts = {lane_id: part_of(request, lane_id) for lane_id in IDS}
            parts["npcs"] = {"records": [{"name": 3}]}
            return Reply(content=json.dumps(parts))
        return answers(request)

    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url, lanes=LANES, requests="combined")
        result = extract(config, tmp_path / "out")
    alone = [request for request in server.requests if not is_combined(request)]
    assert [(asked_lane(request), request.first_unit) for request in alone] == [("npcs", first)]
    assert len(server.requests) == CHUNKS + 1
    npcs = lane(result, "npcs")
    assert (npcs["status"], npcs["requests"], npcs["retries"]) == ("ok", 1, 1)
    assert lane(result, "spells")["retries"] == 0
    with fake_server(answers) as server:
        (tmp_path / "fresh").mkdir()
        extract(write_config(tmp_path / "fresh", server.base_url, lanes=LANES), tmp_path / "f")
    assert files(tmp_path / "out") == files(tmp_path / "f")


def test_a_lane_invalid_alone_too_fails_alone(tmp_path: Path) -> None:
    def script(request: Request) -> Reply:
        if is_combined(request):
            parts = {lane_id: part_of(request, lane_id) for lane_id in IDS if lane_id != "items"}
            return Reply(content=json.dumps(parts))
        if asked_lane(request) == "items":
            return Reply(content="nope")
        return answers(request)

    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, requests="combined", concurrency=1
        )
        result = extract(config, tmp_path / "out")
    items = lane(result, "items")
    assert items["status"] == "failed"
    assert [failure["reason"] for failure in items["failures"]] == [
        "$ is not valid JSON (asked again once)"
    ]
    assert not (tmp_path / "out" / "items.jsonl").exists()
    # once it failed, items is asked no more: the others, two to a request
    last = [request for request in server.requests if is_combined(request)][-1]
    assert last.body["response_format"]["json_schema"]["schema"]["required"] == IDS[:2]
    assert (lane(result, "spells")["status"], lane(result, "npcs")["status"]) == ("ok", "ok")


def test_a_rerun_asks_nothing_and_a_new_lane_only_what_is_missing(tmp_path: Path) -> None:
    with fake_server(answers) as server:
        config = write_config(tmp_path, server.base_url, lanes=LANES, requests="combined")
        extract(config, tmp_path / "out")
        before = files(tmp_path / "out")
        result = extract(config, tmp_path / "out")
        assert len(server.requests) == CHUNKS
        assert [lane(result, each)["cache_hits"] for each in IDS] == [CHUNKS] * 3
        assert "combined_requests" not in lane(result, "spells")
        assert files(tmp_path / "out") == before
        assert len(cache_entries(tmp_path / "out" / ".cache")) == 3 * CHUNKS
        # the lanes asked are part of the key: other lanes ask again
        config = write_config(tmp_path, server.base_url, lanes=LANES[:2], requests="combined")
        extract(config, tmp_path / "out")
        assert len(server.requests) == 2 * CHUNKS


def test_a_killed_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    units = first_units()
    release = threading.Event()

    def script(request: Request) -> Reply:
        if request.first_unit == units[2]:
            reply = answers(request)
            reply.wait = release
            return reply
        return answers(request)

    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, requests="combined", concurrency=1
        )
        process = extract_process(config, tmp_path / "out", {})
        server.wait_for(lambda s: len(s.requests) == 3)
        process.send_signal(signal.SIGKILL)
        process.wait(20)
        release.set()
    assert len(cache_entries(tmp_path / "out" / ".cache")) == 2 * 3
    with fake_server(answers) as server:  # one at a time: the requests' order is asserted
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, requests="combined", concurrency=1
        )
        result = extract(config, tmp_path / "out")
    assert [request.first_unit for request in server.requests] == units[2:]
    assert [lane(result, each)["cache_hits"] for each in IDS] == [2] * 3
    with fake_server(answers) as server:
        (tmp_path / "fresh").mkdir()
        extract(write_config(tmp_path / "fresh", server.base_url, lanes=LANES), tmp_path / "f")
    assert files(tmp_path / "out") == files(tmp_path / "f")


def test_a_cut_answer_asks_each_lane_alone(tmp_path: Path) -> None:
    def script(request: Request) -> Reply:
        if is_combined(request):
            return Reply(content='{"spells": {"records": [', finish_reason="length")
        if ASK_SHORTER in request.units:
            return answers(request)
        if asked_lane(request) == "spells":
            return Reply(content='{"records": [', finish_reason="length")
        return answers(request)

    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, requests="combined", max_units=26
        )
        result = extract(config, tmp_path / "out")
    assert [is_combined(request) for request in server.requests] == [
        True,
        False,
        False,
        False,
        False,
    ]
    spells = lane(result, "spells")
    assert (spells["status"], spells["truncated"], spells["requests"], spells["retries"]) == (
        "ok",
        2,
        2,
        2,
    )
    assert (lane(result, "npcs")["truncated"], lane(result, "npcs")["requests"]) == (1, 1)
    assert len(candidates(tmp_path / "out" / "spells.jsonl")) == 2


def test_a_rules_lane_is_not_asked_and_a_mixed_lane_sends_its_model_part(tmp_path: Path) -> None:
    lanes: list[dict[str, Any]] = [
        {"id": "spells", "artifact_kind": "dnd/spell-casts", "engine": ["rules", "openai"]},
        {"id": "npcs", "artifact_kind": "dnd/npcs", "engine": "rules"},
        {"id": "items", "artifact_kind": "dnd/item-events"},
    ]
    with fake_server(answers) as server:
        config = write_config(tmp_path, server.base_url, lanes=lanes, requests="combined")
        result = extract(config, tmp_path / "out", party={})
    assert len(server.requests) == CHUNKS
    schema = server.requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["spells", "items"]
    assert result.receipt()["status"] == "ok"


def kinds(*names: str) -> list[Part]:
    registry = default_registry()
    out = []
    for lane_id, name in zip(IDS, names, strict=True):
        kind = registry.get(name, where="test")
        assert kind.extraction is not None
        out.append(Part(lane_id, kind, kind.extraction.prompt))
    return out


def test_the_questions_come_first_and_every_chunk_shares_them() -> None:
    parts = kinds("dnd/spell-casts", "dnd/npcs", "dnd/item-events")
    preamble = parts[0].prompt.preamble
    assert preamble and {part.prompt.preamble for part in parts} == {preamble}
    one = [ShownUnit("u1", "MATT", "A half-elf named Talwyn waves."), ShownUnit("u2", None, "Hi")]
    other = [ShownUnit("u3", "SAM", "I cast\nShield.")]
    system = (
        f"{preamble}\n\nQuestion spells:\n{parts[0].prompt.instructions}"
        f"\n\nQuestion npcs:\n{parts[1].prompt.instructions}"
        f"\n\nQuestion items:\n{parts[2].prompt.instructions}"
    )
    assert combined_messages(parts, one) == [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": "Units:\n[u1] MATT: A half-elf named Talwyn waves.\n[u2] Hi\n\n"
            + COMBINED_INTRO,
        },
    ]
    # the server's prompt cache keeps everything before the units: the same for every chunk
    assert combined_messages(parts, other)[0] == {"role": "system", "content": system}
    assert combined_messages(parts, other)[1]["content"] == (
        "Units:\n[u3] SAM: I cast Shield.\n\n" + COMBINED_INTRO
    )


def test_a_combined_answer_is_keyed_by_the_layout_and_the_lanes_asked() -> None:
    assert LAYOUT == "questions-first"
    assert asked_lanes([]) == [LAYOUT]


def test_the_combined_schema_takes_each_lanes_answer_and_nothing_else() -> None:
    parts = kinds("dnd/spell-casts", "dnd/npcs", "dnd/item-events")
    ref = {"start_unit_id": "u1", "end_unit_id": "u1"}
    good = {"spells": {"records": [{"spell": "Shield", "caster": None, "source_refs": [ref]}]}}
    good |= {"npcs": EMPTY, "items": EMPTY}
    sent = combined_format(parts, "json_schema")
    assert sent is not None
    for schema in (combined_schema(parts), sent["json_schema"]["schema"]):
        validator = Draft202012Validator(schema)
        assert validator.is_valid(good)
        assert not validator.is_valid({"spells": EMPTY, "npcs": EMPTY})
        assert not validator.is_valid({**good, "other": EMPTY})
    assert combined_format(parts, "json_object") == {"type": "json_object"}
    assert combined_format(parts, "none") is None
    assert combined_format(parts, "json_object_schema") == {
        "type": "json_object",
        "schema": grammar_schema(combined_schema(parts)),
    }


def problems(split: dict[str, Any]) -> dict[str, str]:
    return {
        lane_id: value.problem if isinstance(value, InvalidAnswer) else "ok"
        for lane_id, value in split.items()
    }


def test_split_answer_judges_each_part_alone() -> None:
    parts = kinds("dnd/spell-casts", "dnd/npcs", "dnd/item-events")
    content = json.dumps({"spells": EMPTY, "npcs": {"records": "x"}})
    assert problems(split_answer(parts, content, "stop")) == {
        "spells": "ok",
        "npcs": "$.records must be a list",
        "items": "$ has no member items",
    }
    assert set(problems(split_answer(parts, "[]", "stop")).values()) == {
        "$ must be an object with one member per question"
    }
    assert set(problems(split_answer(parts, "{", "length")).values()) == {TRUNCATED}


@pytest.mark.parametrize(("total", "count"), [(0, 3), (10, 3), (7, 7), (5, 6), (100, 1)])
def test_shares_sum_to_the_total_and_differ_by_at_most_one(total: int, count: int) -> None:
    each = shares(total, count)
    assert sum(each) == total and len(each) == count and max(each) - min(each) <= 1
    assert each == sorted(each, reverse=True)


def test_config_show_names_a_mode_other_than_the_default(tmp_path: Path) -> None:
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", requests="per-lane")
    shown = invoke(["config", "--show", "--config", str(config)])
    assert (shown.status, shown.stderr) == (0, "")
    text = shown.stdout.decode("utf-8")
    assert yaml.safe_load(text)["pipeline"]["extraction"]["requests"] == "per-lane"

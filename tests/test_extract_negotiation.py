"""Structured output negotiated (``auto``), refused formats told apart from an overloaded
server, ``max_tokens`` on every request, cached tokens, and the order requests are sent in
(chunk by chunk, lane by lane), against the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.extract_support import Sleeps, cites_first_unit, first_units, write_config
from tests.fake_openai import Reply, Request, always, fake_server, structured_mode
from tests.test_extract import ALL_LANES, CHUNKS, extract, lane

pytestmark = pytest.mark.usefixtures("sleeps")

LANES = ALL_LANES[:6]


def mode_of(request: Request) -> str:
    """The structured-output mode a request was sent in."""
    return structured_mode(request.body)


def refusing(*modes: str, status: int = 500) -> Any:
    """A server answering ``status`` to the modes it cannot take (llama-cpp-python answers
    ``json_schema`` with a 500 from its request validation), empty answers otherwise."""

    def script(request: Request) -> Reply:
        if mode_of(request) in modes:
            return Reply(status=status, content="the prompt, echoed")
        return Reply(content='{"records": []}')

    return script


def test_auto_finds_the_first_mode_the_server_takes_once_for_the_run(
    tmp_path: Path, sleeps: Sleeps
) -> None:
    with fake_server(refusing("json_schema")) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, concurrency=3, requests="per-lane"
        )
        result = extract(config, tmp_path / "out")
    modes = [mode_of(request) for request in server.requests]
    # the probe: json_schema, its 500 sent again at once, then the next mode; nothing else
    # is asked until the server accepted one request
    assert modes[:3] == ["json_schema", "json_schema", "json_object_schema"]
    assert set(modes[3:]) == {"json_object_schema"}
    assert len(server.requests) == 2 + 6 * CHUNKS
    assert sleeps.waits == []  # a refused format is not waited for
    assert {item["structured_output"] for item in result.lanes} == {"json_object_schema"}
    assert result.failed_lanes == ()
    assert (lane(result)["requests"], lane(result)["retries"]) == (CHUNKS + 2, 2)
    # the mode is part of the cache key: the same mode named explicitly is all cache hits,
    # another one asks again
    with fake_server(refusing("json_schema")) as server:
        same = write_config(
            tmp_path,
            server.base_url,
            lanes=LANES,
            structured_output="json_object_schema",
            requests="per-lane",
        )
        again = extract(same, tmp_path / "out")
        assert server.requests == []
        assert {item["cache_hits"] for item in again.lanes} == {CHUNKS}
        other = write_config(
            tmp_path,
            server.base_url,
            lanes=LANES,
            structured_output="json_object",
            requests="per-lane",
        )
        extract(other, tmp_path / "out")
        assert len(server.requests) == 6 * CHUNKS


@pytest.mark.parametrize("status", [400, 415, 422])  # a 404: the model or URL (test_extract)
def test_auto_goes_down_on_a_client_error_to_the_first_request(tmp_path: Path, status: int) -> None:
    with fake_server(refusing("json_schema", "json_object_schema", status=status)) as server:
        config = write_config(tmp_path, server.base_url, max_units=26)
        result = extract(config, tmp_path / "out")
    assert [mode_of(request) for request in server.requests] == [
        "json_schema",
        "json_object_schema",
        "json_object",
    ]
    assert lane(result)["structured_output"] == "json_object" and lane(result)["status"] == "ok"


def test_auto_ends_without_a_response_format(tmp_path: Path) -> None:
    with fake_server(refusing("json_schema", "json_object_schema", "json_object")) as server:
        config = write_config(tmp_path, server.base_url, max_units=26)
        result = extract(config, tmp_path / "out")
    assert [mode_of(request) for request in server.requests] == [
        "json_schema",
        "json_schema",
        "json_object_schema",
        "json_object_schema",
        "json_object",
        "json_object",
        "none",
    ]
    assert "response_format" not in server.requests[-1].body
    assert lane(result)["structured_output"] == "none" and lane(result)["status"] == "ok"


def test_an_explicit_mode_refused_fails_at_once_with_a_hint_naming_auto(
    tmp_path: Path, sleeps: Sleeps
) -> None:
    with fake_server(refusing("json_schema")) as server:
        config = write_config(tmp_path, server.base_url, structured_output="json_schema")
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == 2 and sleeps.waits == []
    assert lane(result)["failures"] == [
        {
            "chunk_id": "chunk-000001",
            "reason": "the server refused the request format (structured_output: json_schema, "
            "HTTP 500)",
            "hint": "this server does not take structured_output: json_schema: try "
            "structured_output: auto",
        }
    ]


def test_a_500_after_the_server_accepted_the_lane_is_a_load_and_retried(
    tmp_path: Path, sleeps: Sleeps
) -> None:
    answers = iter([Reply(), Reply(status=500), Reply()])
    with fake_server(lambda request: next(answers, Reply())) as server:
        config = write_config(tmp_path, server.base_url, structured_output="json_schema")
        result = extract(config, tmp_path / "out")
    assert lane(result)["status"] == "ok" and len(sleeps.waits) == 1
    assert len(server.requests) == CHUNKS + 1


def test_a_500_that_differs_when_sent_again_is_a_load(tmp_path: Path, sleeps: Sleeps) -> None:
    answers = iter([Reply(status=500), Reply(status=503), Reply()])
    with fake_server(lambda request: next(answers, Reply())) as server:
        config = write_config(tmp_path, server.base_url, structured_output="json_schema")
        result = extract(config, tmp_path / "out")
    assert lane(result)["status"] == "ok" and lane(result)["structured_output"] == "json_schema"
    assert len(sleeps.waits) == 1 and len(server.requests) == CHUNKS + 2


def test_a_prompt_over_the_context_is_not_a_refused_format(tmp_path: Path) -> None:
    error = b'{"error": {"message": "the prompt, echoed", "code": "context_length_exceeded"}}'
    with fake_server(always(Reply(status=400, body=error))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26)
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == 1
    assert lane(result)["failures"] == [
        {
            "chunk_id": "chunk-000001",
            "reason": "the request does not fit the model's context (HTTP 400)",
            "hint": "lower pipeline.chunking.max_units or max_tokens, or give the server a "
            "longer context",
        }
    ]


def test_max_tokens_is_sent_with_every_request_and_a_lane_may_override_it(
    tmp_path: Path,
) -> None:
    lanes: list[dict[str, Any]] = [{**LANES[0], "max_tokens": 300}, LANES[1]]
    with fake_server(cites_first_unit) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=lanes, max_tokens=200, requests="per-lane"
        )
        result = extract(config, tmp_path / "out")
    sent = {
        ("spells" if "spell" in request.units else "npcs", request.body["max_tokens"])
        for request in server.requests
    }
    assert sent == {("spells", 300), ("npcs", 200)}
    assert (lane(result)["max_tokens"], lane(result, "npcs")["max_tokens"]) == (300, 200)


@pytest.mark.parametrize(
    ("usage", "timings", "cached"),
    [
        ({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 60}}, None, 60),
        ({"prompt_tokens": 100}, {"cache_n": 70, "prompt_n": 30}, 70),
        ({"prompt_tokens": 100}, None, None),
    ],
    ids=["usage", "llama-server-timings", "not-said"],
)
def test_cached_tokens_are_recorded_when_the_server_says(
    tmp_path: Path, usage: dict[str, Any], timings: dict[str, int] | None, cached: int | None
) -> None:
    data: dict[str, Any] = {
        "choices": [{"message": {"content": '{"records": []}'}, "finish_reason": "stop"}],
        "usage": {**usage, "completion_tokens": 5},
    }
    if timings is not None:
        data["timings"] = timings

    with fake_server(always(Reply(body=json.dumps(data).encode()))) as server:
        config = write_config(tmp_path, server.base_url)
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == CHUNKS
    assert lane(result)["cached_tokens"] == (None if cached is None else cached * CHUNKS)
    assert lane(result)["prompt_tokens"] == 100 * CHUNKS


def test_requests_go_chunk_by_chunk_then_lane_by_lane(tmp_path: Path) -> None:
    """With one request at a time, the lanes of a chunk are asked one after the other,
    so a server's prompt cache still holds the chunk when its next lane asks."""
    with fake_server(always(Reply())) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, concurrency=1, requests="per-lane"
        )
        extract(config, tmp_path / "out")
    kinds = {
        "spell": "spells",
        "non-player characters appear": "npcs",
        "deal with a non-player": "npc-interactions",
        "turn in combat": "combat-turns",
        "items": "item-events",
        "scene": "scene-descriptions",
    }

    def lane_of(request: Request) -> str:
        question = request.units.rsplit("Question: ", 1)[1].splitlines()[0]
        (found,) = [lane_id for words, lane_id in kinds.items() if words in question]
        return found

    order = [(request.first_unit, lane_of(request)) for request in server.requests]
    assert order == [(unit, item["id"]) for unit in first_units() for item in LANES]
    # everything before the question is the same for the six lanes of a chunk
    for start in range(0, len(server.requests), 6):
        prefixes = {
            str(request.body["messages"][0]) + request.units.rsplit("Question: ", 1)[0]
            for request in server.requests[start : start + 6]
        }
        assert len(prefixes) == 1

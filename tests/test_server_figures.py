"""The server's own cache and figures: llama.cpp's ``/props`` read once (its parallel
slots for ``concurrency: auto``, ``cache_prompt`` sent where it is llama.cpp), and its
``timings`` summed per lane in the receipt (fake servers; the real one is
tests/test_model_server.py's)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from streamer import api
from streamer.extraction.server_facts import ServerFacts, read_props, server_root
from tests.extract_support import cites_first_unit, session_prefix, write_config
from tests.fake_openai import Reply, Request, fake_server

pytestmark = pytest.mark.usefixtures("sleeps")

LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 3}
TIMINGS = {"cache_n": 40, "prompt_n": 60, "prompt_ms": 12.5, "predicted_ms": 30.25}


@pytest.mark.parametrize(
    ("body", "facts"),
    [
        (b'{"default_generation_settings": {}, "total_slots": 4}', ServerFacts("llama.cpp", 4)),
        (b'{"default_generation_settings": {"n_parallel": 2}}', ServerFacts("llama.cpp", 2)),
        (b'{"default_generation_settings": {}}', ServerFacts("llama.cpp", None)),
        (b'{"total_slots": 0}', ServerFacts("llama.cpp", None)),
        (b'{"total_slots": true}', ServerFacts("llama.cpp", None)),
        (b'{"detail": "Not Found"}', ServerFacts()),
        (b"[1, 2]", ServerFacts()),
        (b"not json", ServerFacts()),
    ],
)
def test_props_are_read_as_llama_cpp_says_them(body: bytes, facts: ServerFacts) -> None:
    assert read_props(body) == facts


def test_auto_takes_the_slots_only_where_the_server_says() -> None:
    assert ServerFacts("llama.cpp", 3).concurrency(True, 4) == 3
    assert ServerFacts("llama.cpp", 3).concurrency(False, 2) == 2
    assert ServerFacts("llama.cpp", None).concurrency(True, 4) == 4
    assert ServerFacts().concurrency(True, 4) == 4
    assert ServerFacts("llama.cpp", 1).extra_body == {"cache_prompt": True}
    assert ServerFacts().extra_body == {}
    assert server_root("http://host:8080/v1/") == "http://host:8080"
    assert server_root("http://host/api") == "http://host/api"


def _lane(result: api.ExtractResult) -> dict[str, Any]:
    (found,) = result.lanes
    return dict(found)


def test_llama_cpp_gets_cache_prompt_and_its_timings_are_recorded(tmp_path: Path) -> None:
    with fake_server(lambda request: _timed(request), LLAMA_PROPS) as server:
        config = write_config(tmp_path, server.base_url, max_units=4)
        source = session_prefix(tmp_path / "three.jsonl", 12)
        result = api.extract(api.load_config(config), source, tmp_path / "out")
    assert server.gets == ["/props"]
    assert [request.body.get("cache_prompt") for request in server.requests] == [True] * 3
    lane = _lane(result)
    assert (lane["requests"], lane["prompt_tokens"], lane["cached_tokens"]) == (3, 300, 120)
    assert lane["server"] == {"prompt_evaluated": 180, "prompt_ms": 37.5, "predicted_ms": 90.8}


def test_a_combined_requests_timings_are_shared_by_its_lanes(tmp_path: Path) -> None:
    """Each lane of a combined request gets an even share of its figures; the lanes' sums
    are the server's."""

    def script(request: Request) -> Reply:
        reply = Reply(content='{"spells": {"records": []}, "npcs": {"records": []}}')
        reply.timings = {**TIMINGS, "prompt_n": 61}
        return reply

    lanes = [
        {"id": "spells", "artifact_kind": "dnd/spell-casts"},
        {"id": "npcs", "artifact_kind": "dnd/npcs"},
    ]
    with fake_server(script, LLAMA_PROPS) as server:
        config = write_config(
            tmp_path, server.base_url, max_units=4, lanes=lanes, requests="combined"
        )
        source = session_prefix(tmp_path / "three.jsonl", 12)
        result = api.extract(api.load_config(config), source, tmp_path / "out")
    assert len(server.requests) == 3
    assert [dict(lane)["server"] for lane in result.lanes] == [
        {"prompt_evaluated": 93, "prompt_ms": 18.8, "predicted_ms": 45.4},
        {"prompt_evaluated": 90, "prompt_ms": 18.8, "predicted_ms": 45.4},
    ]


def _timed(request: Request) -> Reply:
    reply = cites_first_unit(request)
    reply.timings = TIMINGS
    return reply


def test_other_servers_get_nothing_extra(tmp_path: Path) -> None:
    """No ``/props`` (Ollama, vLLM, OpenAI): no ``cache_prompt``, no ``server`` figures, and
    ``concurrency: auto`` is the default concurrency."""
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url, max_units=4, concurrency="auto")
        source = session_prefix(tmp_path / "three.jsonl", 12)
        result = api.extract(api.load_config(config), source, tmp_path / "out")
    assert server.gets == ["/props"]
    assert [("cache_prompt" in request.body) for request in server.requests] == [False] * 3
    assert "server" not in _lane(result)
    assert api.load_config(config).extraction.concurrency == 4


def test_auto_concurrency_is_the_servers_slots(tmp_path: Path) -> None:
    """Each reply but the probe waits until three requests are in flight (a barrier): with
    ``total_slots: 3`` the server sees three at once, and never more."""
    barrier = threading.Barrier(3, timeout=20)

    def script(request: Request) -> Reply:
        if request.first_unit != "t0100":
            barrier.wait()
        return cites_first_unit(request)

    with fake_server(script, LLAMA_PROPS) as server:
        config = write_config(tmp_path, server.base_url, max_units=4, concurrency="auto")
        source = session_prefix(tmp_path / "seven.jsonl", 4 * 7)
        result = api.extract(api.load_config(config), source, tmp_path / "out")
    assert _lane(result)["requests"] == 7 and _lane(result)["status"] == "ok"
    assert server.max_in_flight == 3

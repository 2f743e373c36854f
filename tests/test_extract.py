"""``streamer extract`` against a loopback fake OpenAI-compatible server (real HTTP on
127.0.0.1): what is sent, concurrency, retries, re-asks, the cache, ordering, the key."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import re
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from streamer import api
from streamer.cli.extract_command import ChunkProgressLine
from streamer.domain.dnd.prompts import PREAMBLE
from streamer.extraction.requests import ASK_AGAIN, ASK_SHORTER
from streamer.extraction.response_schema import grammar_schema, response_schema, strict_schema
from streamer.extraction.run import STOP_REPEATS_HINT
from streamer.extraction.transport import ChatTransport, retry_after_seconds
from streamer.framework.errors.types import ConfigurationError
from tests.extract_support import (
    KEY_VARIABLE,
    SESSION,
    Sleeps,
    candidates,
    cites_first_unit,
    first_units,
    session_prefix,
    spell_answer,
    write_config,
)
from tests.fake_openai import FakeServer, Reply, Request, always, fake_server, sequence
from tests.support import REPO, invoke, stopped

# Every transport api.extract builds here records its backoff's sleeps instead of sleeping.
pytestmark = pytest.mark.usefixtures("sleeps")

CHUNKS = len(first_units())  # the demo session's 25 units in chunks of 4
ALL_LANES = [
    {"id": "spells", "artifact_kind": "dnd/spell-casts"},
    {"id": "npcs", "artifact_kind": "dnd/npcs"},
    {"id": "npc-interactions", "artifact_kind": "dnd/npc-interactions"},
    {"id": "combat-turns", "artifact_kind": "dnd/combat-turns"},
    {"id": "item-events", "artifact_kind": "dnd/item-events"},
    {"id": "scene-descriptions", "artifact_kind": "dnd/scene-descriptions"},
    {"id": "places", "artifact_kind": "dnd/places"},
    {"id": "roster", "artifact_kind": "dnd/party-roster"},
]


def in_flight_is(count: int, server: FakeServer) -> bool:
    return server.in_flight == count


def extract(config: Path, out: Path, **options: Any) -> api.ExtractResult:
    return api.extract(api.load_config(config), SESSION, out, **options)


def lane(result: api.ExtractResult, lane_id: str = "spells") -> dict[str, Any]:
    (found,) = [item for item in result.lanes if item["lane_id"] == lane_id]
    return found


def cache_entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


# -- what is sent ------------------------------------------------------------------------------


SPELL_CASTS_STRICT = {
    "type": "object",
    "required": ["records"],
    "additionalProperties": False,
    "properties": {
        "records": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["spell", "caster", "source_refs"],
                "additionalProperties": False,
                "properties": {
                    "spell": {"type": "string"},
                    "caster": {"type": ["string", "null"]},
                    "source_refs": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/source_reference"},
                    },
                },
            },
        }
    },
    "$defs": {
        "source_reference": {
            "description": "An inclusive range of source units in document order, cited by unit ID.",
            "type": "object",
            "required": ["start_unit_id", "end_unit_id"],
            "additionalProperties": False,
            "properties": {
                "start_unit_id": {"type": "string"},
                "end_unit_id": {"type": "string"},
            },
        }
    },
}


def chunk_bound(strict: dict[str, Any], units: list[str]) -> dict[str, Any]:
    """``strict`` as a request of a chunk of ``units`` sends it: each cited unit one of
    them (strict mode drops the bounds, which are ``maxItems``)."""
    assert len(units) > 1
    bound = copy.deepcopy(strict)
    reference = bound["$defs"]["source_reference"]["properties"]
    for member in ("start_unit_id", "end_unit_id"):
        reference[member] = {"type": "string", "enum": units}
    return bound


def objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema inside ``schema``."""
    if isinstance(schema, list):
        return [found for item in schema for found in objects(item)]
    if not isinstance(schema, dict):
        return []
    found = [schema] if "properties" in schema else []
    return found + [item for value in schema.values() for item in objects(value)]


def test_the_request_of_each_kind_carries_its_prompt_and_strict_schema(tmp_path: Path) -> None:
    with fake_server(always(Reply())) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=ALL_LANES, max_units=26, requests="per-lane"
        )
        result = extract(config, tmp_path / "out")
    registry = api.default_registry()
    sent = {
        request.body["response_format"]["json_schema"]["name"]: request
        for request in server.requests
    }
    extracted = [kind for kind in registry if kind.extraction is not None]
    assert sorted(sent) == sorted(kind.schema.name for kind in extracted)
    assert len(extracted) == 7 and result.skipped == ("roster",)
    for kind in extracted:
        assert kind.extraction is not None
        request = sent[kind.schema.name]
        assert request.path == "/v1/chat/completions"
        body = request.body
        assert body["model"] == "fake-model" and body["temperature"] == 0
        assert body["max_tokens"] == 1024
        prompt = kind.extraction.prompt
        assert prompt.preamble == PREAMBLE
        # chunk first, question last: the preamble, the units, then the lane's question
        assert body["messages"][0] == {"role": "system", "content": PREAMBLE}
        user = body["messages"][1]["content"]
        assert user.startswith("Units:\n[t0100] MATT: The rain hammers")
        assert user.endswith("\n\n" + prompt.instructions)
        assert len(user.removesuffix(prompt.instructions).splitlines()) == 27  # + a blank line
        assert len(body["messages"]) == 2
        schema = body["response_format"]["json_schema"]
        assert schema["strict"] is True
        records = schema["schema"]["properties"]["records"]["items"]
        assert list(records["properties"]) == list(kind.model_record_schema()["properties"])
        assert kind.id_member not in records["properties"]
        for item in objects(schema["schema"]):
            assert item["required"] == list(item["properties"])
            assert item["additionalProperties"] is False
        assert "minLength" not in json.dumps(schema) and "minItems" not in json.dumps(schema)
    spells = sent["notarius_dnd_spell_casts_v1"].body
    units = re.findall(r"^\[(t\w+)\]", spells["messages"][1]["content"], re.MULTILINE)
    assert spells["response_format"]["json_schema"]["schema"] == chunk_bound(
        SPELL_CASTS_STRICT, units
    )
    assert {lane_["lane_id"]: lane_["candidates"] for lane_ in result.lanes} == {
        item["id"]: 0 for item in ALL_LANES[:7]
    }


def test_json_object_mode_sends_no_schema(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url, structured_output="json_object")
        extract(config, tmp_path / "out")
    assert {json.dumps(r.body["response_format"]) for r in server.requests} == {
        '{"type": "json_object"}'
    }


def test_json_object_schema_mode_keeps_what_the_servers_grammar_enforces(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url, structured_output="json_object_schema")
        extract(config, tmp_path / "out")
    kind = next(iter(k for k in api.default_registry() if k.name == "dnd/spell-casts"))
    assert len(server.requests) > 1
    for request in server.requests:  # each chunk's own schema
        units = re.findall(r"^\[(t\w+)\]", request.body["messages"][1]["content"], re.MULTILINE)
        schema = request.body["response_format"]["schema"]
        assert schema == grammar_schema(response_schema(kind, units))
        records = schema["properties"]["records"]
        assert records["maxItems"] == len(units)  # a record per unit, at most
        record = records["items"]["properties"]
        assert (record["source_refs"]["minItems"], record["source_refs"]["maxItems"]) == (1, 8)
        assert record["spell"] == {"type": "string", "minLength": 1}
        # a nullable string's bound on its string alternative (the converter would drop it)
        caster = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]}
        assert record["caster"] == caster
        reference = schema["$defs"]["source_reference"]["properties"]
        assert reference["start_unit_id"] == reference["end_unit_id"]
        assert reference["start_unit_id"] == {"type": "string", "enum": units}
    strict = json.dumps(strict_schema(response_schema(kind, units)))
    # json_schema mode: OpenAI's strict subset
    assert "minItems" not in strict and "minLength" not in strict and "anyOf" not in strict
    assert "maxItems" not in strict and '"enum"' in strict


def test_the_strict_variant_leaves_the_full_schema_unchanged() -> None:
    kind = next(iter(k for k in api.default_registry() if k.name == "dnd/spell-casts"))
    full = kind.model_record_schema()
    before = json.dumps(full)
    strict_schema(full)
    assert json.dumps(full) == before and "minLength" in before


# -- concurrency ---------------------------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 2, 3])
def test_never_more_than_concurrency_requests_in_flight(tmp_path: Path, concurrency: int) -> None:
    """Each reply but the first (the run's probe, asked alone) waits until
    ``concurrency`` requests are in flight together (a barrier), so the limit is reached;
    the server counts the most it ever saw at once."""
    barrier = threading.Barrier(concurrency, timeout=20)
    chunks = 7  # the probe, then a multiple of 1, 2 and 3, so that the barrier always fills

    def script(request: Request) -> Reply:
        if request.first_unit != "t0100":
            barrier.wait()
        return cites_first_unit(request)

    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url, max_units=4, concurrency=concurrency)
        source = session_prefix(tmp_path / "six.jsonl", 4 * chunks)
        result = api.extract(api.load_config(config), source, tmp_path / "out")
    assert lane(result)["requests"] == chunks and lane(result)["status"] == "ok"
    assert server.max_in_flight == concurrency


# -- retries -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [
        Reply(status=429, headers={"Retry-After": "0"}),
        Reply(status=500),
        Reply(status=503, headers={"Retry-After": "0"}),
        Reply(hang=True),
        Reply(drop=True),
        Reply(status=200, body=b"<html>proxy error</html>"),
    ],
    ids=["429", "500", "503", "timeout", "dropped-connection", "not-a-completion"],
)
def test_a_transient_failure_is_retried(tmp_path: Path, failure: Reply, sleeps: Sleeps) -> None:
    with fake_server(sequence(failure, then=Reply(content='{"records": []}'))) as server:
        config = write_config(
            tmp_path, server.base_url, max_units=26, timeout_s=0.5, structured_output="none"
        )
        result = extract(config, tmp_path / "out")
    assert (lane(result)["requests"], lane(result)["retries"], lane(result)["status"]) == (
        2,
        1,
        "ok",
    )
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body
    assert len(sleeps.waits) == 1
    if "Retry-After" in failure.headers:
        assert sleeps.waits == [0.0]
    else:
        assert 1.0 <= sleeps.waits[0] <= 2.0  # exponential backoff: 1 s, plus up to 1 s jitter


def test_retry_after_is_honoured_and_backoff_grows(tmp_path: Path, sleeps: Sleeps) -> None:
    replies = [
        Reply(status=429, headers={"Retry-After": "7"}),
        Reply(status=500),
        Reply(status=500),
        Reply(status=500),
    ]
    with fake_server(sequence(*replies)) as server:
        config = write_config(
            tmp_path, server.base_url, max_units=26, max_retries=4, structured_output="none"
        )
        result = extract(config, tmp_path / "out")
    assert lane(result)["requests"] == 5 and lane(result)["status"] == "ok"
    assert sleeps.waits[0] == 7.0
    assert [int(wait) for wait in sleeps.waits[1:]] == [2, 4, 8]  # 1 s doubling, plus jitter < 1 s


def test_retries_exhausted_fail_the_lane_and_write_no_file(tmp_path: Path) -> None:
    with fake_server(always(Reply(status=503))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26, max_retries=2)
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == 3
    assert lane(result)["failures"] == [
        {
            "chunk_id": "chunk-000001",
            "reason": "the server answered HTTP 503, after 3 attempts",
            "hint": "is the server up? raise timeout_s or max_retries for a slow one",
        }
    ]
    assert result.failed_lanes == ("spells",)
    assert not (tmp_path / "out" / "spells.jsonl").exists()


NOT_FOUND_HINT = (
    "check the model's name (--model, pipeline.extraction.model: is it installed? ollama list "
    "shows them) and the URL (it ends in /v1)"
)


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        (400, "the server may not take this request: try structured_output: auto"),
        (409, None),
    ],
)
def test_other_client_errors_fail_at_once(tmp_path: Path, status: int, hint: str | None) -> None:
    """Without a response format to refuse (``none``), a 4xx is the request's fault."""
    with fake_server(always(Reply(status=status, content="the prompt, echoed"))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26, structured_output="none")
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == 1
    failure = {
        "chunk_id": "chunk-000001",
        "reason": f"the server refused the request (HTTP {status})",
    }
    if hint:
        failure["hint"] = hint
    assert lane(result)["failures"] == [failure]
    assert lane(result)["retries"] == 0


@pytest.mark.parametrize(
    ("status", "mode", "hint"),
    [
        (401, "none", "the server refused the key: check the variable named by api_key_env"),
        (403, "auto", "the server refused the key: check the variable named by api_key_env"),
        (404, "auto", NOT_FOUND_HINT),  # an unknown model: never tried in another mode
        (404, "none", NOT_FOUND_HINT),
    ],
)
def test_a_refused_key_or_model_fails_every_lane_at_once_once(
    tmp_path: Path, status: int, mode: str, hint: str
) -> None:
    """What every request would be answered ends the run's asking after one request."""
    with fake_server(always(Reply(status=status, content="the prompt, echoed"))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26, structured_output=mode)
        result = extract(config, tmp_path / "out")
        base_url = server.base_url
    assert len(server.requests) == 1
    assert lane(result)["failures"] == [
        {
            "chunk_id": "chunk-000001",
            "reason": f"the model server {base_url} refused the request (HTTP {status})",
            "hint": hint,
        }
    ]
    assert lane(result)["retries"] == 0


# -- invalid answers ---------------------------------------------------------------------------

INVALID = {
    "malformed": (Reply(content="Sure! Here are the spells: Fireball"), "$ is not valid JSON"),
    "truncated": (
        Reply(content='{"records": [{"spell": "Fire', finish_reason="length"),
        "the answer reached max_tokens",
    ),
    "truncated-without-reason": (
        Reply(content='{"records": [{"spell": "Fire'),
        "$ is not valid JSON",
    ),
    "schema-invalid": (
        Reply(content='{"records": [{"spell": "", "caster": null, "source_refs": []}]}'),
        "$.records[0].spell must be a non-empty string",
    ),
    "extra-member": (
        Reply(content='{"records": [], "summary": "a fight in a tavern"}'),
        '$: unknown member "summary"',
    ),
    "empty": (Reply(content=None), "$ is empty"),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_an_invalid_answer_is_asked_again_once_with_its_problem(tmp_path: Path, name: str) -> None:
    bad, problem = INVALID[name]
    with fake_server(sequence(bad, then=Reply(content='{"records": []}'))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26)
        result = extract(config, tmp_path / "out")
    assert (lane(result)["requests"], lane(result)["retries"], lane(result)["status"]) == (
        2,
        1,
        "ok",
    )
    first, again = server.requests
    if name == "truncated":  # the cut answer is left out; a note follows the question
        system, user = first.body["messages"]
        assert again.body["messages"] == [
            system,
            {"role": "user", "content": user["content"] + "\n\n" + ASK_SHORTER},
        ]
    else:
        assert again.body["messages"][:2] == first.body["messages"]
        assert again.body["messages"][2] == {"role": "assistant", "content": bad.content or ""}
        assert again.body["messages"][3] == {
            "role": "user",
            "content": ASK_AGAIN.format(problem=problem),
        }
    assert lane(result)["prompt_tokens"] == 200 and lane(result)["completion_tokens"] == 20
    assert lane(result)["truncated"] == (1 if name == "truncated" else 0)


@pytest.mark.parametrize("name", list(INVALID))
def test_an_answer_invalid_twice_fails_the_lane(tmp_path: Path, name: str) -> None:
    bad, problem = INVALID[name]
    lanes = [ALL_LANES[0], {"id": "npcs", "artifact_kind": "dnd/npcs"}]

    def script(request: Request) -> Reply:
        return bad if "spell" in request.body["messages"][1]["content"] else Reply()

    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=lanes, max_units=26, requests="per-lane"
        )
        result = extract(config, tmp_path / "out")
    assert lane(result)["failures"] == [
        {"chunk_id": "chunk-000001", "reason": f"{problem} (asked again once)"}
    ]
    assert len(server.requests) == 3
    assert not (tmp_path / "out" / "spells.jsonl").exists()
    assert lane(result, "npcs")["status"] == "ok" and (tmp_path / "out" / "npcs.jsonl").exists()


def test_a_cut_answer_without_stop_repeats_names_it_as_the_remedy(tmp_path: Path) -> None:
    bad, problem = INVALID["truncated"]
    with fake_server(always(bad)) as server:
        config = write_config(tmp_path, server.base_url, max_units=26, stop_repeats=False)
        result = extract(config, tmp_path / "out")
    assert lane(result)["failures"] == [
        {
            "chunk_id": "chunk-000001",
            "reason": f"{problem} (asked again once)",
            "hint": STOP_REPEATS_HINT,
        }
    ]


def test_no_retries_means_no_reask(tmp_path: Path) -> None:
    with fake_server(always(Reply(content="nope"))) as server:
        config = write_config(tmp_path, server.base_url, max_units=26, max_retries=0)
        result = extract(config, tmp_path / "out")
    assert len(server.requests) == 1
    assert lane(result)["failures"][0]["reason"] == "$ is not valid JSON (max_retries is 0)"


# -- output --------------------------------------------------------------------------------------


def test_the_candidates_file_and_receipt(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url)
        result = extract(config, tmp_path / "out")
    lines = candidates(tmp_path / "out" / "spells.jsonl")
    Draft202012Validator(
        json.loads(api.schema("notarius.normalization.candidates_header"))
    ).validate(lines[0])
    for line in lines[1:]:
        Draft202012Validator(json.loads(api.schema("notarius.normalization.candidate"))).validate(
            line
        )
    assert lines[0] == {
        "lane_id": "spells",
        "artifact_kind": "dnd/spell-casts",
        "source": {
            "document_id": "demo-slayers-take",
            "semantic_digest": "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6",
        },
        "extractor": {"engine": "openai", "model": "fake-model", "prompt": "dnd/spell-casts@2"},
    }
    assert [
        (line["chunk_id"], line["record"]["source_refs"][0]["start_unit_id"]) for line in lines[1:]
    ] == [(f"chunk-{index + 1:06d}", unit) for index, unit in enumerate(first_units())]
    assert result.receipt() == {
        "status": "ok",
        "document_id": "demo-slayers-take",
        "chunks": CHUNKS,
        "lanes": [
            {
                "lane_id": "spells",
                "artifact_kind": "dnd/spell-casts",
                "engine": "openai",
                "model": "fake-model",
                "prompt": "dnd/spell-casts@2",
                "structured_output": "json_schema",
                "max_tokens": 1024,
                "status": "ok",
                "file": "spells.jsonl",
                "chunks": CHUNKS,
                "candidates": CHUNKS,
                "cache_hits": 0,
                "requests": CHUNKS,
                "retries": 0,
                "prompt_tokens": 100 * CHUNKS,
                "completion_tokens": 10 * CHUNKS,
                "cached_tokens": None,
                "truncated": 0,
                "failures": [],
            }
        ],
        "skipped_lanes": [],
    }


def test_candidates_are_identical_whatever_the_completion_order(tmp_path: Path) -> None:
    """One run answers chunk by chunk; the other holds every answer but the first (the
    run's probe, asked alone) until all the other chunks are in flight, then releases them
    last chunk first."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with fake_server(cites_first_unit) as server:
        extract(
            write_config(tmp_path / "a", server.base_url, concurrency=1), tmp_path / "a" / "out"
        )
    in_order = (tmp_path / "a" / "out" / "spells.jsonl").read_bytes()
    gates = {unit: threading.Event() for unit in first_units()}
    gates[first_units()[0]].set()

    def held(request: Request) -> Reply:
        return Reply(content=spell_answer(request), wait=gates[request.first_unit])

    with fake_server(held) as server:
        config = write_config(tmp_path / "b", server.base_url, concurrency=CHUNKS)
        thread = threading.Thread(target=extract, args=(config, tmp_path / "b" / "out"))
        thread.start()
        server.wait_for(lambda s: s.in_flight == CHUNKS - 1)
        for left, unit in reversed(list(enumerate(first_units()[1:]))):
            gates[unit].set()  # the last chunk first; each answered before the next is let go
            server.wait_for(partial(in_flight_is, left))
        thread.join(20)
    assert [request.first_unit for request in server.requests[-1:]] != []
    assert (tmp_path / "b" / "out" / "spells.jsonl").read_bytes() == in_order


def test_a_lane_without_base_url_or_model_is_refused_before_reading(tmp_path: Path) -> None:
    config = tmp_path / "streamer.yaml"
    config.write_text("pipeline:\n  lanes: [{id: spells, artifact_kind: dnd/spell-casts}]\n")
    with pytest.raises(ConfigurationError) as raised:
        api.extract(api.load_config(config), tmp_path / "missing.jsonl", tmp_path / "out")
    assert raised.value.one_line() == (
        '$.pipeline.extraction.base_url is required: lane "spells" uses engine openai '
        "(hint: see docs/extraction.md for each server, or give the lane engine: rules)"
    )
    assert not (tmp_path / "out").exists()


def test_the_key_variable_must_be_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", api_key_env=KEY_VARIABLE)
    with pytest.raises(ConfigurationError) as raised:
        api.extract(api.load_config(config), tmp_path / "missing.jsonl", tmp_path / "out")
    assert raised.value.one_line() == (
        f"environment variable {KEY_VARIABLE} (pipeline.extraction.api_key_env) is not set or "
        f"empty (hint: export {KEY_VARIABLE} with the server's key, or remove api_key_env for a "
        "server without one)"
    )


def test_the_party_roster_is_never_extracted(tmp_path: Path) -> None:
    config = write_config(tmp_path, "http://127.0.0.1:9/v1", lanes=ALL_LANES[-1:])
    with pytest.raises(
        ConfigurationError, match="artifact kind dnd/party-roster is never extracted"
    ):
        api.extract(api.load_config(config), SESSION, tmp_path / "out", lanes=["roster"])


# -- the cache -----------------------------------------------------------------------------------


def test_a_rerun_asks_nothing_and_writes_the_same_bytes(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url)
        extract(config, tmp_path / "out")
        first = (tmp_path / "out" / "spells.jsonl").read_bytes()
        sent = len(server.requests)
        result = extract(config, tmp_path / "out")
        assert len(server.requests) == sent == CHUNKS
        assert (lane(result)["cache_hits"], lane(result)["requests"]) == (CHUNKS, 0)
        assert (tmp_path / "out" / "spells.jsonl").read_bytes() == first
        result = extract(config, tmp_path / "out", no_cache=True)
        assert len(server.requests) == 2 * CHUNKS
        assert (lane(result)["cache_hits"], lane(result)["requests"]) == (0, CHUNKS)
    assert len(cache_entries(tmp_path / "out" / ".cache")) == CHUNKS


def test_a_new_lane_or_model_asks_only_for_what_is_missing(tmp_path: Path) -> None:
    lanes = ALL_LANES[:2]
    with fake_server(always(Reply())) as server:
        config = write_config(tmp_path, server.base_url, lanes=lanes[:1])
        extract(config, tmp_path / "out")
        config = write_config(tmp_path, server.base_url, lanes=lanes)
        result = extract(config, tmp_path / "out")
        assert len(server.requests) == 2 * CHUNKS
        assert (lane(result)["cache_hits"], lane(result, "npcs")["requests"]) == (CHUNKS, CHUNKS)
        config = write_config(tmp_path, server.base_url, lanes=lanes, model="another-model")
        extract(config, tmp_path / "out", lanes=["npcs"])
        assert len(server.requests) == 3 * CHUNKS


def test_a_damaged_cache_entry_is_asked_again(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url)
        extract(config, tmp_path / "out")
        entry = cache_entries(tmp_path / "out" / ".cache")[0]
        entry.write_text('{"records": [{"spell": 3}]}')
        result = extract(config, tmp_path / "out", cache_dir=tmp_path / "out" / ".cache")
    assert (lane(result)["cache_hits"], lane(result)["requests"]) == (CHUNKS - 1, 1)
    assert json.loads(entry.read_text())["records"][0]["spell"] == "Fireball"


def test_a_cache_entry_holds_only_the_records(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        extract(write_config(tmp_path, server.base_url), tmp_path / "out")
    entry = cache_entries(tmp_path / "out" / ".cache")[0]
    assert entry.parent.name == "spells"
    assert list(json.loads(entry.read_text())) == ["records"]
    assert oct(entry.stat().st_mode & 0o777) == "0o600"


def extract_args(config: Path, source: Path, out: Path, *extra: str) -> list[str]:
    return [
        "extract",
        "--config",
        str(config),
        "--source",
        str(source),
        "--output-dir",
        str(out),
        *extra,
    ]


def extract_process(config: Path, out: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamer",
            "extract",
            "--config",
            str(config),
            "--source",
            str(SESSION),
            "--output-dir",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
    )


def test_a_killed_run_leaves_the_cache_and_a_rerun_asks_only_for_the_rest(tmp_path: Path) -> None:
    units = first_units()
    release = threading.Event()

    def script(request: Request) -> Reply:
        if request.first_unit == units[2]:
            return Reply(content=spell_answer(request), wait=release)
        return cites_first_unit(request)

    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url, concurrency=1)
        process = extract_process(config, tmp_path / "out", {})
        server.wait_for(lambda s: len(s.requests) == 3)
        process.send_signal(signal.SIGKILL)
        process.wait(20)
        release.set()
    assert process.returncode == -signal.SIGKILL
    assert not (tmp_path / "out" / "spells.jsonl").exists()
    assert len(cache_entries(tmp_path / "out" / ".cache")) == 2
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url, concurrency=1)
        result = extract(config, tmp_path / "out")
    assert [request.first_unit for request in server.requests] == units[2:]
    assert (lane(result)["cache_hits"], lane(result)["requests"]) == (2, CHUNKS - 2)
    with fake_server(cites_first_unit) as server:
        (tmp_path / "fresh").mkdir()
        extract(write_config(tmp_path / "fresh", server.base_url), tmp_path / "fresh" / "out")
    assert (tmp_path / "out" / "spells.jsonl").read_bytes() == (
        tmp_path / "fresh" / "out" / "spells.jsonl"
    ).read_bytes()


# -- the command line and the key --------------------------------------------------------------

SECRET = "sk-test-0123456789-do-not-leak"


def every_file(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


def test_the_key_is_sent_and_written_nowhere(tmp_path: Path) -> None:
    def script(request: Request) -> Reply:
        spells = "spell" in request.body["messages"][1]["content"]
        if spells and request.first_unit == first_units()[-1]:
            return Reply(status=401)
        return cites_first_unit(request) if spells else Reply()

    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=ALL_LANES[:2], api_key_env=KEY_VARIABLE, concurrency=1
        )
        args = ["extract", "--config", str(config), "--source", str(SESSION), "--output-dir"]
        ok = invoke([*args, str(tmp_path / "out"), "--lane", "spells"], env={KEY_VARIABLE: SECRET})
        debug = invoke(["--debug", *args, str(tmp_path / "out")], env={KEY_VARIABLE: SECRET})
    assert {request.headers["Authorization"] for request in server.requests} == {f"Bearer {SECRET}"}
    assert ok.status == 4, ok.stderr
    assert ok.stderr == (
        "streamer: error: lane spells failed, no candidates file: chunk-000007: the server "
        "refused the request (HTTP 401) (hint: the server refused the key: check the variable "
        "named by api_key_env)\n"
    )
    assert json.loads(ok.stdout)["lanes"][0]["failures"][0]["chunk_id"] == "chunk-000007"
    streams = [ok.stdout.decode(), ok.stderr, debug.stdout.decode(), debug.stderr]
    files = every_file(tmp_path)
    assert debug.status == 4 and (tmp_path / "out" / "npcs.jsonl").exists()
    assert len(files) == 1 + 6 + 7 + 1  # configuration, cache entries, npcs.jsonl
    for text in [*streams, *(path.read_bytes().decode("utf-8", "replace") for path in files)]:
        assert SECRET not in text
        assert SECRET[8:20] not in text


def test_the_command_writes_the_receipt_and_exits_0(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url)
        run = invoke(
            extract_args(
                config, SESSION, tmp_path / "out", "--cache-dir", str(tmp_path / "cache"), "--quiet"
            )
        )
    assert (run.status, run.stderr) == (0, "")
    receipt = json.loads(run.stdout)
    assert receipt["status"] == "ok" and receipt["lanes"][0]["candidates"] == CHUNKS
    assert run.stdout.count(b"\n") == 1
    assert len(cache_entries(tmp_path / "cache")) == CHUNKS
    assert not (tmp_path / "out" / ".cache").exists()


def test_a_configuration_error_exits_2_before_any_request(tmp_path: Path) -> None:
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url, concurrency=0)
        run = invoke(extract_args(config, SESSION, tmp_path / "out"))
    assert run.status == 2
    assert (
        run.stderr == "streamer: error: $.pipeline.extraction.concurrency must be an integer >= 1\n"
    )
    assert server.requests == [] and not (tmp_path / "out").exists()


def test_invalid_source_exits_3_before_any_request(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text('{"document_id": "x"}\n{"unit_id": "u1"}\n')
    with fake_server(cites_first_unit) as server:
        config = write_config(tmp_path, server.base_url)
        run = invoke(extract_args(config, source, tmp_path / "out"))
    assert run.status == 3, run.stderr
    assert server.requests == [] and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("sig", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGQUIT, 131)],
)
def test_an_interrupted_run_ends_quietly_and_keeps_the_answers(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    units = first_units()

    def script(request: Request) -> Reply:
        return Reply(hang=True) if request.first_unit == units[2] else cites_first_unit(request)

    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url, concurrency=1)
        process = extract_process(config, tmp_path / "out", {})
        server.wait_for(lambda s: len(s.requests) == 3)
        process.send_signal(sig)
        stdout, stderr = process.communicate(timeout=20)
    assert (process.returncode, stdout, stderr) == (status, b"", stopped(status))
    assert [path.name for path in (tmp_path / "out").iterdir()] == [".cache"]
    assert len(cache_entries(tmp_path / "out" / ".cache")) == 2


# -- transport details -------------------------------------------------------------------------


def test_requests_per_minute_spaces_the_requests(tmp_path: Path) -> None:
    now = [100.0]
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    async def three(transport: ChatTransport) -> None:
        try:
            for _ in range(3):
                await transport.complete({"model": "m", "messages": []})
        finally:
            await transport.aclose()

    with fake_server(always(Reply())) as server:
        transport = ChatTransport(
            server.base_url,
            api_key=None,
            timeout_s=5,
            max_retries=0,
            concurrency=1,
            requests_per_minute=30,
            sleep=sleep,
            clock=lambda: now[0],
        )
        asyncio.run(three(transport))
    assert waits == [2.0, 2.0] and len(server.requests) == 3
    assert "Authorization" not in server.requests[0].headers


def test_retry_after_as_seconds_or_an_http_date() -> None:
    now = datetime(2026, 12, 1, 8, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("3", lambda: now) == 3.0
    assert retry_after_seconds("Tue, 01 Dec 2026 08:00:05 GMT", lambda: now) == 5.0
    assert retry_after_seconds("Tue, 01 Dec 2026 07:00:00 GMT", lambda: now) == 0.0
    assert retry_after_seconds("86400", lambda: now) == 600.0
    assert retry_after_seconds("soon", lambda: now) is None
    assert retry_after_seconds(None, lambda: now) is None


def test_the_progress_line_shows_chunks_per_lane(capsys: pytest.CaptureFixture[str]) -> None:
    line = ChunkProgressLine()
    line("spells", 1, 7)
    line("npcs", 3, 7)
    line("spells", 2, 7)
    line.close()
    assert capsys.readouterr().err == (
        "\rstreamer: extract spells 1/7\x1b[K"
        "\rstreamer: extract spells 1/7, npcs 3/7\x1b[K"
        "\rstreamer: extract spells 2/7, npcs 3/7\x1b[K"
        "\r\x1b[K"
    )

"""``streamer run --estimate``: the requests and prompt tokens the model stage would send,
and a time from two real requests, against a fake server; nothing is published."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

import orjson
import pytest

from streamer.api.estimate import Estimate, _probed, _seconds
from streamer.cli.estimate_summary import estimate_summary
from streamer.extraction.combined import COMBINED_INTRO
from tests.extract_support import write_config
from tests.fake_openai import Reply, Request, fake_server
from tests.run_support import in_folder
from tests.support import invoke

pytestmark = pytest.mark.usefixtures("sleeps")

LANES = [
    {"id": "spells", "artifact_kind": "dnd/spell-casts"},
    {"id": "npcs", "artifact_kind": "dnd/npcs"},
    {"id": "places", "artifact_kind": "dnd/places"},
]


def test_estimate_counts_with_the_servers_tokenizer_and_publishes_nothing(
    tmp_path: Path,
) -> None:
    counted: list[int] = []
    lock = threading.Lock()

    def script(request: Request) -> Reply:
        if request.path == "/extras/tokenize":  # llama-cpp-python's tokenizer: a word a token
            tokens = len(str(request.body["input"]).split())
            with lock:
                counted.append(tokens)
            return Reply(body=json.dumps({"tokens": [0] * tokens}).encode())
        return Reply()

    in_folder(tmp_path, "bridge.vtt")
    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, max_units=4, requests="per-lane"
        )
        run = invoke(
            ["run", "bridge.vtt", "--output", "s", "--config", str(config), "--estimate"],
            cwd=tmp_path,
        )
        chats = [request for request in server.requests if request.path == "/v1/chat/completions"]
    assert run.status == 0, run.stderr
    receipt = orjson.loads(run.stdout)
    chunks = receipt["chunks"]
    assert chunks == 2  # bridge.vtt's 7 units in chunks of 4 (none shared)
    assert receipt["model_lanes"] == ["spells", "npcs", "places"]
    assert receipt["requests"] == len(counted) == 3 * chunks
    assert receipt["prompt_tokens"] == sum(counted)
    assert receipt["prompt_tokens_counted_by"] == "server"
    # the probe: the first chunk's first lane (the cold start), then the second chunk's
    # first two lanes (same units, two questions)
    assert [chat.first_unit for chat in chats] == ["u000001", "u000005", "u000005"]
    assert chats[1].units != chats[2].units
    assert len(receipt["probe_seconds"]) == 3 and receipt["server_slots"] is None
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bridge.vtt", "streamer.yaml"]


def test_without_a_tokenizer_the_tokens_are_estimated(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    with fake_server(
        lambda request: (
            Reply(status=404, usage=None) if request.path != "/v1/chat/completions" else Reply()
        )
    ) as server:
        config = write_config(tmp_path, server.base_url, lanes=LANES[:1], max_units=4)
        run = invoke(
            ["run", "bridge.vtt", "--output", "s", "--config", str(config), "--estimate"],
            cwd=tmp_path,
        )
    assert run.status == 0, run.stderr
    receipt = orjson.loads(run.stdout)
    assert (receipt["requests"], receipt["prompt_tokens_counted_by"]) == (2, "estimate")
    assert len(receipt["probe_seconds"]) == 2  # the cold start, then the second chunk


def test_combined_requests_are_one_a_chunk_and_the_probe_asks_two_chunks(
    tmp_path: Path,
) -> None:
    def script(request: Request) -> Reply:
        if request.path == "/extras/tokenize":  # a word a token
            tokens = len(str(request.body["input"]).split())
            return Reply(body=json.dumps({"tokens": [0] * tokens}).encode())
        return Reply()

    in_folder(tmp_path, "bridge.vtt")
    with fake_server(script) as server:
        config = write_config(
            tmp_path, server.base_url, lanes=LANES, max_units=4, requests="combined"
        )
        run = invoke(
            ["run", "bridge.vtt", "--output", "s", "--config", str(config), "--estimate"],
            cwd=tmp_path,
        )
        chats = [request for request in server.requests if request.path == "/v1/chat/completions"]
        counted = [request for request in server.requests if request.path == "/extras/tokenize"]
    assert run.status == 0, run.stderr
    receipt = orjson.loads(run.stdout)
    assert (receipt["chunks"], receipt["requests"], receipt["requests_mode"]) == (2, 2, "combined")
    assert len(counted) == 2  # one prompt a chunk, every lane's question in it
    assert all("Question places:" in str(each.body["input"]) for each in counted)
    # the probe: the combined requests of the first two chunks, as a run sends them
    assert [chat.first_unit for chat in chats] == ["u000001", "u000005"]
    assert all(COMBINED_INTRO in chat.units for chat in chats)
    assert [chat.body["max_tokens"] for chat in chats] == [3 * 1024] * 2
    assert len(receipt["probe_seconds"]) == 2


@pytest.mark.parametrize(
    ("probe", "chunks", "lanes", "seconds"),
    [
        ((30.0, 10.0, 2.0), 5, 3, 30 + 4 * 10 + 5 * 2 * 2),  # cold once, then per chunk
        ((30.0, 10.0), 5, 1, 30 + 4 * 10),  # one lane: its chunks
        ((30.0, 2.0), 1, 3, 30 + 2 * 2),  # one chunk: the first lane cold, the rest cached
        ((30.0,), 1, 1, 30),
    ],
)
def test_the_time_counts_the_cold_start_once(
    probe: tuple[float, ...], chunks: int, lanes: int, seconds: float
) -> None:
    assert len(_probed(chunks, lanes)) == len(probe)
    assert _seconds(probe, chunks, lanes) == seconds


def test_the_summary_line() -> None:
    found = Estimate(30, ("spells", "npcs"), 60, 123_456, "estimate", (9.5, 2.0), None, 690.0)
    assert estimate_summary(found) == (
        "streamer: 60 requests (30 chunks x 2 model lanes), 123,456 prompt tokens "
        "(estimated); about 12 min (probe: 9.5 s, 2.0 s)"
    )
    combined = Estimate(30, ("spells", "npcs"), 30, 99_000, "server", (9.5, 8.0), None, 241.5)
    combined = dataclasses.replace(combined, combined=True)
    assert estimate_summary(combined) == (
        "streamer: 30 requests (30 chunks, 2 model lanes in each), 99,000 prompt tokens "
        "(counted by the server); about 5 min (probe: 9.5 s, 8.0 s)"
    )

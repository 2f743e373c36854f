"""``requests: combined`` against the real model server (``tests/model_server.py``): the
six lanes over the CRD3 slice of ``tests/test_model_server.py``, one request for the
chunk, then each lane whose part was invalid asked alone; the receipt's tokens are the
server's; a rerun is all cache hits; Ctrl-C then a rerun asks only for the lanes not
answered. (Per-lane requests are ``tests/test_model_server.py``'s.) What the 135M model
says is never asserted, only what must hold whatever it says.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamer.extraction.combined import COMBINED_INTRO
from tests import model_server
from tests import test_model_server as shared
from tests.model_server import Exchange, Recorder
from tests.support import KIND_OF_LANE, REPO, run_cli, stopped
from tests.test_model_server import LANES, MAX_TOKENS, MAX_UNITS, OVERLAP, lane_of_question

# the real server and the CRD3 slice of tests/test_model_server.py (its fixtures)
server = shared.server
crd3_slice = shared.crd3_slice

MODE = "json_object_schema"  # what auto finds on this server (tests/test_model_server.py)


def write_config(folder: Path, base_url: str, mode: str = MODE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "pipeline": {
            "lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in LANES],
            "chunking": {"max_units": MAX_UNITS, "overlap_units": OVERLAP},
            "extraction": {
                "base_url": base_url,
                "model": "smollm2-135m",
                "structured_output": mode,
                "requests": "combined",
                "max_tokens": MAX_TOKENS,
                "concurrency": 1,
                "timeout_s": 600,
                "max_retries": 1,
                # read whole: these check the receipt against the server's own usage,
                # which llama-cpp-python sends only with a whole answer (streamed answers:
                # tests/test_model_server_stop_repeats.py)
                "stop_repeats": False,
            },
        }
    }
    path = folder / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def extract(
    recorder: Recorder, folder: Path, source: Path, mode: str = MODE
) -> tuple[dict[str, Any], list[Exchange]]:
    config = write_config(folder, recorder.base_url, mode)
    recorder.take()
    run = run_cli(
        [
            *("extract", "--config", str(config), "--source", str(source)),
            *("--output-dir", str(folder / "candidates")),
        ]
    )
    assert run.status in (0, 4), run.stderr  # ok, or a lane failed (a 135M model)
    return json.loads(run.stdout), recorder.take()


def is_combined(exchange: Exchange) -> bool:
    return COMBINED_INTRO in str(exchange.body["messages"][1]["content"])


def lanes_of(receipt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {lane["lane_id"]: lane for lane in receipt["lanes"]}


def check_accounted(receipt: dict[str, Any], exchanges: list[Exchange]) -> None:
    """One combined request a chunk, bounded; then only lanes asked alone, at most twice
    each; the lanes' tokens sum to the server's."""
    chunks = receipt["chunks"]
    combined = [exchange for exchange in exchanges if is_combined(exchange)]
    alone = [exchange for exchange in exchanges if not is_combined(exchange)]
    assert len(combined) == chunks
    assert {exchange.body["max_tokens"] for exchange in combined} == {MAX_TOKENS * len(LANES)}
    assert {exchange.body["max_tokens"] for exchange in alone} <= {MAX_TOKENS}
    for exchange in exchanges:
        assert exchange.status == 200
        assert exchange.usage["completion_tokens"] <= exchange.body["max_tokens"]
    lanes = lanes_of(receipt)
    questions = lane_of_question()
    for lane_id, lane in lanes.items():
        mine = [exchange for exchange in alone if questions[exchange.question] == lane_id]
        assert lane["combined_requests"] == chunks
        assert lane["requests"] == len(mine) <= 2 * chunks
    for key in ("prompt_tokens", "completion_tokens"):
        assert sum(lane[key] for lane in lanes.values()) == sum(
            exchange.usage[key] for exchange in exchanges
        )


def test_combined_is_one_request_a_chunk_and_a_rerun_asks_nothing(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    receipt, exchanges = extract(server, tmp_path, crd3_slice)
    check_accounted(receipt, exchanges)
    ok = [lane["lane_id"] for lane in receipt["lanes"] if lane["status"] == "ok"]
    before = {path.name: path.read_bytes() for path in (tmp_path / "candidates").glob("*.jsonl")}
    rerun, asked = extract(server, tmp_path, crd3_slice)
    if len(ok) == len(receipt["lanes"]):
        assert asked == []
    # a lane that answered every chunk is all cache hits, whatever failed beside it; only
    # the lanes that failed are asked again
    lanes = lanes_of(rerun)
    assert [(lanes[i]["cache_hits"], lanes[i]["requests"]) for i in ok] == [
        (rerun["chunks"], 0)
    ] * len(ok)
    assert all(
        "combined_requests" not in lanes[i] or lanes[i]["combined_requests"] == 0 for i in ok
    )
    after = {path.name: path.read_bytes() for path in (tmp_path / "candidates").glob("*.jsonl")}
    assert {name: after[name] for name in before if name[: -len(".jsonl")] in ok} == {
        name: before[name] for name in before if name[: -len(".jsonl")] in ok
    }


@pytest.mark.parametrize(
    ("mode", "sent"), [("json_object", {"type": "json_object"}), ("none", None)]
)
def test_combined_without_a_schema_is_bounded_and_accounted(
    server: Recorder, crd3_slice: Path, tmp_path: Path, mode: str, sent: dict[str, str] | None
) -> None:
    receipt, exchanges = extract(server, tmp_path, crd3_slice, mode)
    check_accounted(receipt, exchanges)
    combined = [exchange for exchange in exchanges if is_combined(exchange)]
    assert [exchange.body.get("response_format") for exchange in combined] == [sent] * len(combined)
    # the questions are the system message every combined request shares
    assert len({str(exchange.body["messages"][0]) for exchange in combined}) == 1
    assert {lane["structured_output"] for lane in receipt["lanes"]} <= {mode}


def test_interrupted_combined_then_rerun_asks_only_for_what_is_missing(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    config = write_config(tmp_path, server.base_url)
    server.take()
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "streamer", "extract", "--config", str(config)),
            *("--source", str(crd3_slice), "--output-dir", str(tmp_path / "candidates")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    # Ctrl-C once the server has answered the combined request
    deadline = time.monotonic() + model_server.REQUEST_S
    while not server.exchanges and process.poll() is None:
        assert time.monotonic() < deadline, "the server answered nothing in time"
        time.sleep(0.1)  # polling the recorder, not an assertion
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=model_server.REQUEST_S)
    if process.returncode != 130:  # every part was valid: the run ended before Ctrl-C
        assert process.returncode in (0, 4), stderr
    else:
        assert (stdout, stderr) == (b"", stopped(130))
    cached = sum(1 for _ in (tmp_path / "candidates" / ".cache").rglob("*.json"))
    server.wait_idle()
    server.take()
    rerun, asked = extract(server, tmp_path, crd3_slice)
    assert sum(lane["cache_hits"] for lane in rerun["lanes"]) == cached
    # nothing cached is asked again
    hits = {lane["lane_id"] for lane in rerun["lanes"] if lane["cache_hits"]}
    assert not set().union(*(asked_lanes(exchange) for exchange in asked)) & hits


def asked_lanes(exchange: Exchange) -> set[str]:
    """The lanes a request asked: a combined request's schema members, else its question's."""
    if is_combined(exchange):
        return set(exchange.body["response_format"]["schema"]["required"])
    return {lane_of_question()[exchange.question]}

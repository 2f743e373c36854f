"""The prompt tokens a llama.cpp-family server evaluates per transcript token, by request mode.

    python -m benchmarks.prompt_tokens --base-url http://127.0.0.1:8080 --server-log server.log \\
        --source episode.jsonl --units 300:700 [--max-units 100 --overlap 10] [--mode combined]

Start the server first with its log going to ``--server-log`` (llama-cpp-python:
``python -m llama_cpp.server --model M.gguf --n_ctx 8192 > server.log 2>&1``). For each mode
the requests a run of the seven model lanes sends are built by streamer's own functions
(``requests.messages`` per lane, ``combined.combined_messages``) over the units of
``--source`` (a JSON Lines source, as ``streamer import`` writes it) in ``--units``, cut as
the run cuts them, and sent one at a time in the run's order (chunk by chunk; per-lane,
lane by lane within a chunk) with ``max_tokens: 1`` so that only the prompt counts, after
one unrelated request that empties the server's prompt cache. The tokens evaluated are the
sum of the server's ``prompt eval ... / N tokens`` lines written meanwhile; the transcript
tokens are the units' lines (as a request shows them) by the server's tokenizer
(``POST /extras/tokenize``, llama-cpp-python's; llama.cpp's ``llama-server`` has ``POST
/tokenize``). Wall times are the server's, on whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from streamer.api.config import default_registry
from streamer.extraction.combined import Part, combined_format, combined_messages
from streamer.extraction.requests import messages, response_format
from streamer.framework.chunking.chunker import Chunker
from streamer.framework.kinds.extraction_spec import ShownUnit

MODE = "json_object_schema"
EVALUATED = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


def units_of(source: Path, first: int, last: int) -> list[ShownUnit]:
    lines = source.read_text("utf-8").splitlines()[1:][first:last]
    shown = []
    for line in lines:
        unit = json.loads(line)
        speaker = (unit.get("metadata") or {}).get("speaker")
        shown.append(ShownUnit(unit["unit_id"], speaker, unit["text"]))
    return shown


def chunks_of(
    units: Sequence[ShownUnit], max_units: int, overlap: int
) -> list[tuple[ShownUnit, ...]]:
    chunker: Chunker[ShownUnit] = Chunker(max_units, overlap)
    return [chunk.items for chunk in [*chunker.add_many(units), *chunker.finish()]]


def parts() -> list[Part]:
    """Every installed kind that a model extracts, under its default lane (seven lanes)."""
    return [
        Part(kind.default_lane, kind, kind.extraction.prompt)
        for kind in default_registry()
        if kind.extraction is not None
    ]


def post(base_url: str, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
    request = urllib.request.Request(
        base_url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=3600) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer, time.monotonic() - start


def evaluated(log: Path) -> int:
    return sum(int(n) for n in EVALUATED.findall(log.read_text("utf-8", errors="replace")))


def bodies(mode: str, lanes: Sequence[Part], chunk: Sequence[ShownUnit]) -> list[dict[str, Any]]:
    if mode == "combined":
        asked = [(combined_messages(lanes, chunk), combined_format(lanes, MODE))]
    else:
        asked = [(messages(part.prompt, chunk), response_format(part.kind, MODE)) for part in lanes]
    out = []
    for conversation, format_ in asked:
        body: dict[str, Any] = {"messages": conversation, "max_tokens": 1, "temperature": 0}
        if format_ is not None:
            body["response_format"] = format_
        out.append(body)
    return out


def measure(args: argparse.Namespace) -> None:
    first, _, last = args.units.partition(":")
    units = units_of(args.source, int(first), int(last))
    chunks = chunks_of(units, args.max_units, args.overlap)
    lanes = parts()
    said, _ = post(args.base_url, "/extras/tokenize", {"input": "\n".join(u.line() for u in units)})
    transcript = len(said["tokens"])
    print(f"units {args.units}: {len(units)} units, {len(chunks)} chunks, {transcript} tokens")
    for mode in args.mode or ["per-lane", "combined"]:
        empty = {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 1}
        post(args.base_url, "/v1/chat/completions", empty)
        before, billed, wall, requests = evaluated(args.server_log), 0, 0.0, 0
        for chunk in chunks:
            for body in bodies(mode, lanes, chunk):
                answer, seconds = post(args.base_url, "/v1/chat/completions", body)
                billed += int(answer["usage"]["prompt_tokens"])
                wall += seconds
                requests += 1
        time.sleep(1)  # the server may write its last request's timings after answering it
        count = evaluated(args.server_log) - before
        print(
            f"{mode}: {requests} requests, {billed} prompt tokens in usage, {count} evaluated, "
            f"{count / transcript:.2f} per transcript token, {wall:.0f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the server's root, without /v1")
    parser.add_argument("--server-log", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--units", default="300:700", help="FIRST:LAST (positions)")
    parser.add_argument("--max-units", type=int, default=100)
    parser.add_argument("--overlap", type=int, default=10)
    parser.add_argument("--mode", action="append", choices=["per-lane", "combined"])
    measure(parser.parse_args())


if __name__ == "__main__":
    main()

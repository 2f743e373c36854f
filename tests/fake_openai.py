"""A fake OpenAI-compatible Chat Completions server on 127.0.0.1, for the extraction tests.

Real HTTP (``http.server`` in a thread), scripted: ``script(request)`` decides each answer
(a ``Reply``), and every request is recorded (path, headers, parsed body). A reply can
block on an event before answering (so a test controls completion order and sees how many
requests are in flight without sleeping), or drop the connection, or never answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WAIT_S = 20.0  # a test that waits this long on an event has failed


@dataclass
class Reply:
    """What the fake server does with one request."""

    status: int = 200
    content: str | None = '{"records": []}'
    body: bytes | None = None  # the raw body, instead of a completion around ``content``
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 100, "completion_tokens": 10}
    )
    timings: dict[str, float] | None = None  # llama.cpp's ``timings``, when given
    drop: bool = False  # close the connection without answering
    wait: threading.Event | None = None  # answer only once this is set
    hang: bool = False  # never answer (until the server stops)
    # asked with ``"stream": true``: answer as server-sent events, ``content`` in pieces of
    # ``piece`` characters (then the finish reason, the usage and ``[DONE]``), each event
    # written a byte at a time; with ``hold``, write only the pieces, then keep the stream
    # open until the client closes it (``FakeServer.closed_by_client`` counts those)
    stream: bool = False
    piece: int = 1
    hold: bool = False
    drop_stream: bool = False  # write only the pieces, then close the connection
    # write only the pieces, then ``[DONE]`` without a finish reason, as llama-cpp-python
    # (``interrupt_requests``) cuts a streamed answer off when another request waits
    cut_off: bool = False


def structured_mode(body: dict[str, Any]) -> str:
    """The structured-output mode a chat request's ``body`` was sent in."""
    format_ = body.get("response_format")
    if format_ is None:
        return "none"
    if format_["type"] == "json_schema":
        return "json_schema"
    return "json_object_schema" if "schema" in format_ else "json_object"


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def units(self) -> str:
        """The user message: the chunk's units."""
        return str(self.body["messages"][1]["content"])

    @property
    def first_unit(self) -> str:
        return self.units.splitlines()[1].split("]")[0].lstrip("[")


def events(reply: Reply) -> Iterator[bytes]:
    """The server-sent events of a streamed ``reply``."""

    def event(data: dict[str, Any]) -> bytes:
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    def chunk(delta: dict[str, str], finish_reason: str | None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [choice]}

    yield event(chunk({"role": "assistant"}, None))
    content = reply.content or ""
    for start in range(0, len(content), reply.piece):
        yield event(chunk({"content": content[start : start + reply.piece]}, None))
    if reply.hold or reply.drop_stream:
        return
    if reply.cut_off:
        yield b"data: [DONE]\n\n"
        return
    yield event(chunk({}, reply.finish_reason))
    last: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": []}
    if reply.usage is not None:
        last["usage"] = reply.usage
    if reply.timings is not None:
        last["timings"] = reply.timings
    yield event(last)
    yield b"data: [DONE]\n\n"


def completion(reply: Reply) -> bytes:
    if reply.body is not None:
        return reply.body
    data: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
    }
    if reply.usage is not None:
        data["usage"] = reply.usage
    if reply.timings is not None:
        data["timings"] = reply.timings
    return json.dumps(data).encode()


class FakeServer:
    """``base_url`` is the ``/v1`` root; ``requests`` every request received, in order."""

    def __init__(
        self, script: Callable[[Request], Reply], props: dict[str, Any] | None = None
    ) -> None:
        """``props``: what ``GET /props`` answers, as llama.cpp's server (else a 404)."""
        self.script = script
        self.props = props
        self.gets: list[str] = []
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed_by_client = 0
        self.received = threading.Condition()
        self._stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake.gets.append(self.path)
                found = self.path == "/props" and fake.props is not None
                data = json.dumps(fake.props if found else {"error": "not found"}).encode()
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                request = Request(self.path, dict(self.headers.items()), body)
                with fake.received:
                    fake.requests.append(request)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    fake.received.notify_all()
                try:
                    reply = fake.script(request)
                    if reply.hang:
                        fake._stop.wait(WAIT_S)
                        self.close_connection = True
                        return
                    if reply.wait is not None and not reply.wait.wait(WAIT_S):
                        raise AssertionError("the test never released a reply")
                    if reply.drop:
                        self.close_connection = True
                        return
                    if reply.stream and body.get("stream") is True:
                        self._stream(reply)
                        return
                    data = completion(reply)
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with fake.received:
                        fake.in_flight -= 1
                        fake.received.notify_all()

            def _stream(self, reply: Reply) -> None:
                self.close_connection = True
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for data in events(reply):
                        for index in range(len(data)):  # a byte at a time
                            self.wfile.write(data[index : index + 1])
                            self.wfile.flush()
                    if not reply.hold or self.rfile.read(1) != b"":  # until the client closes
                        return
                except (BrokenPipeError, ConnectionResetError):
                    pass  # closed while the pieces were written
                with fake.received:
                    fake.closed_by_client += 1
                    fake.received.notify_all()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host!s}:{port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def wait_for(self, predicate: Callable[[FakeServer], bool]) -> None:
        """Block until ``predicate(self)`` holds (checked whenever a request comes or
        goes)."""
        with self.received:
            if not self.received.wait_for(lambda: predicate(self), WAIT_S):
                raise AssertionError("the fake server never saw what the test waited for")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def fake_server(
    script: Callable[[Request], Reply], props: dict[str, Any] | None = None
) -> Iterator[FakeServer]:
    server = FakeServer(script, props)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def always(reply: Reply) -> Callable[[Request], Reply]:
    return lambda request: reply


def sequence(*replies: Reply, then: Reply | None = None) -> Callable[[Request], Reply]:
    """The replies in order, then ``then`` (default: an empty answer) for every request."""
    queue = list(replies)
    lock = threading.Lock()

    def script(request: Request) -> Reply:
        with lock:
            return queue.pop(0) if queue else (then or Reply())

    return script

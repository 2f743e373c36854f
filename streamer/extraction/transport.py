"""HTTP to an OpenAI-compatible Chat Completions server: concurrency, rate, retries.

Why httpx and tenacity rather than the official ``openai`` package: every server we name
(Ollama, llama.cpp's ``llama-server``, vLLM, LM Studio, OpenAI) speaks the same one
endpoint, ``POST {base_url}/chat/completions``, and what this stage needs around it is
exactly the part a run must account for: how many requests were sent and retried (the
receipt counts them), which failures are retried (429, 408, 5xx, timeouts and dropped
connections) and which fail at once (any other 4xx), honouring ``Retry-After``, a backoff
clock the tests can replace, and error lines that never carry a response body (a server
may echo the prompt). ``openai``'s built-in retries hide the count and the classification,
and it brings pydantic and a typed model of the whole API for one call. httpx (async,
connection pooling, precise timeouts) with tenacity (retry policies, exponential backoff
with jitter) are both well kept and small, and pinned in ``pyproject.toml``.

A refused request format is told apart from an overloaded server: when ``complete`` is
asked to ``probe`` (a lane's first request in a structured-output mode, before the server
accepted one), a 400, 415 or 422 to the first attempt, or a 500 (without
``Retry-After``) answered again at once to the same request, raises ``FormatRefused``
rather than being retried with backoff (llama-cpp-python answers a ``response_format``
it cannot take with HTTP 500).

What no other request would change fails at once, once, as ``ServerFailed``: a connection
refused or a host unknown before the server ever answered (a wrong port or host; after
it has answered, a dropped connection is retried as a restart would need), and a 401,
403 or 404 before it accepted any request (the key, the model's name, the URL's path):
the run then asks nothing more. Later, they fail the lane that met them, as before.

With ``stop_repeats`` a request asks for a stream (``"stream": true``) and reads its
server-sent events as they come (``completions.StreamedCompletion``), watching for a
repeated record (``repeats.RepeatWatch``); at the first, the response is closed unread,
which closes the connection, and servers stop generating when their client is gone. A
server that answers a stream in one body is read as one. A stream dropped midway is retried
as a dropped connection is.

At most ``concurrency`` requests are in flight at once (held only while a request is on
the wire, not while it waits to be retried), fewer once a request timed out while others
were in flight or its streamed answer was cut off (``[DONE]`` before a finish reason:
llama-cpp-python stops an answer so when another request waits) (``slots.InFlight``: the
server serves fewer at once); ``requests_per_minute`` spaces
request starts evenly. The key, when there is one, is sent as ``Authorization: Bearer``
and nowhere else: no error, log or receipt shows it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from streamer.extraction.completions import (
    Completion,
    NotACompletion,
    StreamedCompletion,
    parse_completion,
)
from streamer.extraction.repeats import RepeatWatch
from streamer.extraction.slots import InFlight
from streamer.extraction.transport_errors import (
    BACKOFF_INITIAL_S,
    BACKOFF_MAX_S,
    REFUSED_FORMAT_STATUSES,
    FormatRefused,
    HttpStatus,
    RequestFailed,
    Retryable,
    ServerFailed,
    classify,
    error_code,
    retry_after_seconds,
    unreachable,
)

if TYPE_CHECKING:  # imported where used: every command but extract starts without them
    import httpx
    from tenacity import RetryCallState

__all__ = [
    "ChatTransport",
    "Completion",
    "FormatRefused",
    "RequestFailed",
    "Retryable",
    "ServerFailed",
    "Sleep",
    "retry_after_seconds",
]


Sleep = Callable[[float], Awaitable[None]]


class _Wait:
    """The server's ``Retry-After`` when it sent one, else exponential backoff with
    jitter."""

    def __init__(self) -> None:
        from tenacity import wait_exponential_jitter

        self._backoff = wait_exponential_jitter(
            initial=BACKOFF_INITIAL_S, max=BACKOFF_MAX_S, jitter=BACKOFF_INITIAL_S
        )

    def __call__(self, state: RetryCallState) -> float:
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        if isinstance(error, Retryable) and error.retry_after is not None:
            return error.retry_after
        return float(self._backoff(state))


class _RateLimit:
    """Request starts spaced by ``60 / per_minute`` seconds."""

    def __init__(self, per_minute: int, clock: Callable[[], float], sleep: Sleep) -> None:
        self._interval = 60.0 / per_minute
        self._clock = clock
        self._sleep = sleep
        self._next: float | None = None
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = self._clock()
            if self._next is not None and now < self._next:
                await self._sleep(self._next - now)
                now = self._next
            self._next = now + self._interval


class ChatTransport:
    """Sends Chat Completions requests; ``complete`` retries what is worth retrying.

    ``sleep`` and ``clock`` are the backoff's (tests replace them so that nothing waits);
    ``transport`` is httpx's (tests may replace it too)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout_s: float,
        max_retries: int,
        concurrency: int,
        requests_per_minute: int | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        """``extra_body`` is sent with every request beside the Chat Completions fields
        (llama.cpp's ``cache_prompt``: ``server_facts``)."""
        import httpx

        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.AsyncClient(
            base_url=base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            transport=transport,
            follow_redirects=False,
            trust_env=False,
        )
        self._base_url = base_url
        self._extra_body = dict(extra_body or {})
        self._answered = False  # whether the server has answered any request yet
        self._accepted = False  # whether it has accepted one (a 2xx)
        self._max_retries = max_retries
        self._slots = InFlight(concurrency)
        self._sleep = sleep
        self._rate = (
            None if requests_per_minute is None else _RateLimit(requests_per_minute, clock, sleep)
        )

    @property
    def _run_wide(self) -> str | None:
        """The URL a refusal names as the run's, until a request was accepted."""
        return None if self._accepted else self._base_url

    @property
    def in_flight_limit(self) -> int:
        """The most requests in flight now: ``concurrency``, or fewer once the server
        queued one until it timed out (``slots``)."""
        return self._slots.limit

    async def aclose(self) -> None:
        await self._client.aclose()

    async def complete(
        self,
        body: dict[str, Any],
        on_send: Callable[[], None] = lambda: None,
        *,
        probe: bool = False,
        stop_repeats: bool = False,
    ) -> Completion:
        """One completion; ``on_send`` is called for every request sent (retries
        included). With ``probe``, a refusal of the request as such raises
        ``FormatRefused`` (see the module's documentation). With ``stop_repeats``, the
        answer is streamed and stopped at its first repeated record (``repeats``), the
        connection closed so that the server stops generating. Raises
        ``RequestFailed``."""
        from tenacity import AsyncRetrying, retry_if_exception_type

        streamed = {"stream": True, "stream_options": {"include_usage": True}}
        payload = msgspec.json.encode(
            {**body, **self._extra_body, **(streamed if stop_repeats else {})}
        )
        attempts = 0

        async def send() -> Completion:
            nonlocal attempts
            attempts += 1
            on_send()
            return await self._send(payload, stop_repeats)

        async def attempt() -> Completion:
            try:
                return await send()
            except HttpStatus as answer:
                if not (probe and attempts == 1 and answer.code is None):
                    raise classify(answer, self._run_wide) from None
                if answer.status in REFUSED_FORMAT_STATUSES:
                    raise FormatRefused(answer.status) from None
                if answer.status != 500 or answer.retry_after is not None:
                    raise classify(answer, self._run_wide) from None
                first = answer.status
            try:  # a 500 to a probe is sent again at once: the same answer is a refusal
                return await send()
            except HttpStatus as again:
                if again.status == first and again.retry_after is None:
                    raise FormatRefused(first) from None
                raise classify(again, self._run_wide) from None

        retrying = AsyncRetrying(
            stop=lambda state: attempts >= self._max_retries + 1,
            wait=_Wait(),
            retry=retry_if_exception_type(Retryable),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            async for each in retrying:
                with each:
                    return await attempt()
        except Retryable as error:
            raise RequestFailed(
                f"{error.reason}, after {attempts} attempt{'s' if attempts > 1 else ''}",
                hint="is the server up? raise timeout_s or max_retries for a slow one",
            ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _send(self, payload: bytes, stop_repeats: bool) -> Completion:
        """One request: its completion; ``HttpStatus`` for a non-2xx answer; ``Retryable`` for
        a timeout, a dropped connection or a response that is not a completion."""
        import httpx

        if self._rate is not None:
            await self._rate.wait()
        async with self._slots:
            try:
                request = self._client.build_request("POST", "chat/completions", content=payload)
                response = await self._client.send(request, stream=True)
                try:
                    return await self._read(response, stop_repeats)
                finally:
                    await response.aclose()  # unread: the connection closes, generation stops
            except httpx.TimeoutException:
                self._slots.crowded()
                raise Retryable("the request timed out") from None
            except httpx.ConnectError as error:
                if self._answered:
                    raise Retryable("the connection failed or was dropped") from None
                raise unreachable(self._base_url, error) from None
            except httpx.TransportError:
                raise Retryable("the connection failed or was dropped") from None

    async def _read(self, response: httpx.Response, stop_repeats: bool) -> Completion:
        self._answered = True
        status = response.status_code
        if not 200 <= status < 300:
            retry_after = retry_after_seconds(
                response.headers.get("retry-after"), lambda: datetime.now(UTC)
            )
            raise HttpStatus(status, retry_after, error_code(await response.aread()))
        self._accepted = True
        streamed = response.headers.get("content-type", "").startswith("text/event-stream")
        try:
            if not (stop_repeats and streamed):  # a server may answer a stream whole
                return parse_completion(await response.aread())
            stream = StreamedCompletion()
            watch = RepeatWatch()
            async for line in response.aiter_lines():
                text = stream.line(line)
                if text and watch.feed(text):
                    return stream.completion(watch.closed())
                if stream.done:
                    break
            if not stream.ended:  # closed before its finish reason or [DONE]
                raise Retryable("the connection failed or was dropped")
            if stream.cut_off:  # [DONE] without a finish reason: stopped for another request
                self._slots.crowded()
                raise Retryable("the server cut the answer off for another request")
            return stream.completion()
        except NotACompletion:
            raise Retryable("the server's response is not a chat completion") from None

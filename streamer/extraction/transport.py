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

At most ``concurrency`` requests are in flight at once (a semaphore held only while a
request is on the wire, not while it waits to be retried); ``requests_per_minute`` spaces
request starts evenly. The key, when there is one, is sent as ``Authorization: Bearer``
and nowhere else: no error, log or receipt shows it.
"""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from streamer.extraction.server_figures import ServerTimings

if TYPE_CHECKING:  # imported where used: every command but extract starts without them
    import httpx
    from tenacity import RetryCallState

BACKOFF_INITIAL_S = 1.0
BACKOFF_MAX_S = 60.0
RETRY_AFTER_MAX_S = 600.0
RETRIED_STATUSES = frozenset({408, 429})
REFUSED_FORMAT_STATUSES = frozenset({400, 415, 422})
# What every request of the run would be answered: the key refused, no such model or path.
RUN_REFUSED_STATUSES = frozenset({401, 403, 404})
ERROR_BODY_MAX = 65_536  # an error body read for its ``error.code`` only, never shown
CONTEXT_CODE = "context_length_exceeded"

Sleep = Callable[[float], Awaitable[None]]


class Retryable(Exception):
    """A failure worth another attempt: ``reason`` is content-safe, ``retry_after`` is the
    server's ``Retry-After`` in seconds, when it sent one."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class RequestFailed(Exception):
    """A request that will not succeed: refused (a 4xx other than 408 and 429) or failed
    after every retry. ``reason`` is content-safe; ``hint`` may say what to check."""

    def __init__(self, reason: str, hint: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


class ServerFailed(RequestFailed):
    """A failure every request of the run would meet, so the run asks nothing more: the
    server cannot be reached (before it ever answered: a refused connection, an unknown
    host), or it refused the model or the key (HTTP 401, 403, 404). ``reason`` names the
    server's URL (configuration, never content)."""


class FormatRefused(Exception):
    """The server refused a probed request as such (its format, most likely): ``status`` is
    the HTTP status of the refusal."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


@dataclass(frozen=True)
class Completion:
    """The part of a Chat Completions response extraction reads. ``cached_tokens`` is the
    prompt tokens the server took from its prompt cache, when it says
    (``usage.prompt_tokens_details.cached_tokens``, or llama.cpp's ``timings.cache_n``);
    ``timings`` the server's own figures, where it sends them (llama.cpp's ``timings``)."""

    content: str | None
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None
    timings: ServerTimings | None = None


class _PromptDetails(msgspec.Struct):
    cached_tokens: int | None = None


class _Usage(msgspec.Struct):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_details: _PromptDetails | None = None


class _Timings(msgspec.Struct):
    cache_n: int | None = None
    prompt_n: int | None = None
    prompt_ms: float | None = None
    predicted_ms: float | None = None


class _Message(msgspec.Struct):
    content: str | None = None


class _Choice(msgspec.Struct):
    message: _Message
    finish_reason: str | None = None


class _Response(msgspec.Struct):
    choices: list[_Choice]
    usage: _Usage | None = None
    timings: _Timings | None = None


class _ErrorDetail(msgspec.Struct):
    code: str | int | None = None


class _ErrorBody(msgspec.Struct):
    error: _ErrorDetail | str | None = None


_decode_response = msgspec.json.Decoder(_Response).decode
_decode_error = msgspec.json.Decoder(_ErrorBody).decode


class _Status(Exception):
    """A non-2xx answer, before it is classified."""

    def __init__(self, status: int, retry_after: float | None, code: str | None) -> None:
        super().__init__(status)
        self.status = status
        self.retry_after = retry_after
        self.code = code


def _error_code(content: bytes) -> str | None:
    """The ``error.code`` of an OpenAI-style error body, when it is one the hints know
    (compared, never shown: the body may echo the prompt)."""
    if len(content) > ERROR_BODY_MAX:
        return None
    try:
        error = _decode_error(content).error
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if isinstance(error, _ErrorDetail) and error.code == CONTEXT_CODE:
        return CONTEXT_CODE
    return None


def retry_after_seconds(value: str | None, now: Callable[[], datetime]) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), capped; ``None`` when
    absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now()).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


def _refusal_hint(status: int) -> str | None:
    if status in (401, 403):
        return "the server refused the key: check the variable named by api_key_env"
    if status == 404:
        return (
            "check the model's name (--model, pipeline.extraction.model: is it installed? "
            "ollama list shows them) and the URL (it ends in /v1)"
        )
    if status in (400, 422):
        return "the server may not take this request: try structured_output: auto"
    return None


def _classify(answer: _Status, base_url: str | None) -> Retryable | RequestFailed:
    """What a non-2xx answer means; ``base_url`` until the server has accepted a request
    (a refused key or model then fails the run: ``ServerFailed``), else ``None``."""
    status = answer.status
    if status in RUN_REFUSED_STATUSES and base_url is not None:
        return ServerFailed(
            f"the model server {base_url} refused the request (HTTP {status})",
            _refusal_hint(status),
        )
    if answer.code == CONTEXT_CODE:
        return RequestFailed(
            f"the request does not fit the model's context (HTTP {status})",
            hint="lower pipeline.chunking.max_units or max_tokens, or give the server a "
            "longer context",
        )
    if status in RETRIED_STATUSES or status >= 500:
        return Retryable(f"the server answered HTTP {status}", answer.retry_after)
    return RequestFailed(f"the server refused the request (HTTP {status})", _refusal_hint(status))


_UNKNOWN_HOST = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "no address associated",
)


def _unreachable(base_url: str, error: Exception) -> ServerFailed:
    """The server could not be reached before it ever answered: a wrong port or host."""
    causes: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and len(causes) < 8:  # httpx wraps the socket's error
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    said = " ".join(str(each) for each in causes).lower()
    hint = "is the model server running? check --model-url (pipeline.extraction.base_url)"
    if any(isinstance(each, socket.gaierror) for each in causes) or any(
        marker in said for marker in _UNKNOWN_HOST
    ):
        return ServerFailed(f"the model server {base_url} is an unknown host", hint)
    if any(isinstance(each, ConnectionRefusedError) for each in causes) or "refused" in said:
        return ServerFailed(f"the model server {base_url} refused the connection", hint)
    return ServerFailed(f"the model server {base_url} cannot be reached", hint)


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
        self._slots = asyncio.Semaphore(concurrency)
        self._sleep = sleep
        self._rate = (
            None if requests_per_minute is None else _RateLimit(requests_per_minute, clock, sleep)
        )

    @property
    def _run_wide(self) -> str | None:
        """The URL a refusal names as the run's, until a request was accepted."""
        return None if self._accepted else self._base_url

    async def aclose(self) -> None:
        await self._client.aclose()

    async def complete(
        self,
        body: dict[str, Any],
        on_send: Callable[[], None] = lambda: None,
        *,
        probe: bool = False,
    ) -> Completion:
        """One completion; ``on_send`` is called for every request sent (retries
        included). With ``probe``, a refusal of the request as such raises
        ``FormatRefused`` (see the module's documentation). Raises ``RequestFailed``."""
        from tenacity import AsyncRetrying, retry_if_exception_type

        payload = msgspec.json.encode({**body, **self._extra_body})
        attempts = 0

        async def send() -> Completion:
            nonlocal attempts
            attempts += 1
            on_send()
            return await self._send(payload)

        async def attempt() -> Completion:
            try:
                return await send()
            except _Status as answer:
                if not (probe and attempts == 1 and answer.code is None):
                    raise _classify(answer, self._run_wide) from None
                if answer.status in REFUSED_FORMAT_STATUSES:
                    raise FormatRefused(answer.status) from None
                if answer.status != 500 or answer.retry_after is not None:
                    raise _classify(answer, self._run_wide) from None
                first = answer.status
            try:  # a 500 to a probe is sent again at once: the same answer is a refusal
                return await send()
            except _Status as again:
                if again.status == first and again.retry_after is None:
                    raise FormatRefused(first) from None
                raise _classify(again, self._run_wide) from None

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

    async def _send(self, payload: bytes) -> Completion:
        """One request: its completion; ``_Status`` for a non-2xx answer; ``Retryable`` for
        a timeout, a dropped connection or a response that is not a completion."""
        import httpx

        if self._rate is not None:
            await self._rate.wait()
        async with self._slots:
            try:
                response = await self._client.post("chat/completions", content=payload)
            except httpx.TimeoutException:
                raise Retryable("the request timed out") from None
            except httpx.ConnectError as error:
                if self._answered:
                    raise Retryable("the connection failed or was dropped") from None
                raise _unreachable(self._base_url, error) from None
            except httpx.TransportError:
                raise Retryable("the connection failed or was dropped") from None
        self._answered = True
        status = response.status_code
        if not 200 <= status < 300:
            retry_after = retry_after_seconds(
                response.headers.get("retry-after"), lambda: datetime.now(UTC)
            )
            raise _Status(status, retry_after, _error_code(response.content))
        self._accepted = True
        try:
            parsed = _decode_response(response.content)
            choice = parsed.choices[0]
        except (msgspec.DecodeError, msgspec.ValidationError, IndexError):
            raise Retryable("the server's response is not a chat completion") from None
        usage = parsed.usage or _Usage()
        cached = usage.prompt_tokens_details.cached_tokens if usage.prompt_tokens_details else None
        timings = parsed.timings
        if cached is None and timings is not None:
            cached = timings.cache_n
        return Completion(
            choice.message.content,
            choice.finish_reason,
            usage.prompt_tokens or 0,
            usage.completion_tokens or 0,
            cached,
            None
            if timings is None
            else ServerTimings(timings.prompt_n, timings.prompt_ms, timings.predicted_ms),
        )

"""What a failed request means: the transport's exceptions and how an answer is classified.

A non-2xx answer (``HttpStatus``) is classified by ``classify``: retried (``Retryable``:
429, 408, 5xx), failing the run (``ServerFailed``: 401, 403, 404 before the server accepted
any request), or failing the request (``RequestFailed``). ``unreachable`` names a server
that could not be reached before it ever answered. Every reason is content-safe: a
response body is read for its ``error.code`` only, never shown (it may echo the prompt).
"""

from __future__ import annotations

import email.utils
import socket
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

BACKOFF_INITIAL_S = 1.0
BACKOFF_MAX_S = 60.0
RETRY_AFTER_MAX_S = 600.0
RETRIED_STATUSES = frozenset({408, 429})
REFUSED_FORMAT_STATUSES = frozenset({400, 415, 422})
# What every request of the run would be answered: the key refused, no such model or path.
RUN_REFUSED_STATUSES = frozenset({401, 403, 404})
ERROR_BODY_MAX = 65_536  # an error body read for its ``error.code`` only, never shown
CONTEXT_CODE = "context_length_exceeded"


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


class _ErrorDetail(msgspec.Struct):
    code: str | int | None = None


class _ErrorBody(msgspec.Struct):
    error: _ErrorDetail | str | None = None


_decode_error = msgspec.json.Decoder(_ErrorBody).decode


class HttpStatus(Exception):
    """A non-2xx answer, before it is classified."""

    def __init__(self, status: int, retry_after: float | None, code: str | None) -> None:
        super().__init__(status)
        self.status = status
        self.retry_after = retry_after
        self.code = code


def error_code(content: bytes) -> str | None:
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


def classify(answer: HttpStatus, base_url: str | None) -> Retryable | RequestFailed:
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


def unreachable(base_url: str, error: Exception) -> ServerFailed:
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

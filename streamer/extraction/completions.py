"""The part of a Chat Completions response extraction reads (``parse_completion``)."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from streamer.extraction.server_figures import ServerTimings


class NotACompletion(Exception):
    """The response's body is not a chat completion (its text is never shown)."""


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


_decode_response = msgspec.json.Decoder(_Response).decode


def parse_completion(content: bytes) -> Completion:
    """The completion a 2xx response's body holds; ``NotACompletion`` when it holds none."""
    try:
        parsed = _decode_response(content)
        choice = parsed.choices[0]
    except (msgspec.DecodeError, msgspec.ValidationError, IndexError):
        raise NotACompletion from None
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

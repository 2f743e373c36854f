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
    repeated: bool = False  # streamed, and stopped at its first repeated record


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


class _Delta(msgspec.Struct):
    content: str | None = None


class _StreamChoice(msgspec.Struct):
    delta: _Delta | None = None
    finish_reason: str | None = None


class _Chunk(msgspec.Struct):
    choices: list[_StreamChoice] = []
    usage: _Usage | None = None
    timings: _Timings | None = None


class _Response(msgspec.Struct):
    choices: list[_Choice]
    usage: _Usage | None = None
    timings: _Timings | None = None


_decode_response = msgspec.json.Decoder(_Response).decode
_decode_chunk = msgspec.json.Decoder(_Chunk).decode


def parse_completion(content: bytes) -> Completion:
    """The completion a 2xx response's body holds; ``NotACompletion`` when it holds none."""
    try:
        parsed = _decode_response(content)
        choice = parsed.choices[0]
    except (msgspec.DecodeError, msgspec.ValidationError, IndexError):
        raise NotACompletion from None
    return _completion(choice.message.content, choice.finish_reason, parsed.usage, parsed.timings)


def _completion(
    content: str | None,
    finish_reason: str | None,
    usage: _Usage | None,
    timings: _Timings | None,
    *,
    pieces: int = 0,
    repeated: bool = False,
) -> Completion:
    usage = usage or _Usage()
    cached = usage.prompt_tokens_details.cached_tokens if usage.prompt_tokens_details else None
    if cached is None and timings is not None:
        cached = timings.cache_n
    completion_tokens = usage.completion_tokens
    return Completion(
        content,
        finish_reason,
        usage.prompt_tokens or 0,
        pieces if completion_tokens is None else completion_tokens,
        cached,
        None
        if timings is None
        else ServerTimings(timings.prompt_n, timings.prompt_ms, timings.predicted_ms),
        repeated,
    )


class StreamedCompletion:
    """A completion read from a server-sent event stream (``"stream": true``), line by
    line (``line``): the pieces of text joined, the last finish reason, the usage and
    timings where a chunk carries them (OpenAI, vLLM, Ollama and llama.cpp's server send
    usage when asked with ``stream_options``; llama-cpp-python sends none: the completion
    tokens are then the pieces received, one a token, and the prompt tokens 0)."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._count = 0
        self._finish_reason: str | None = None
        self._usage: _Usage | None = None
        self._timings: _Timings | None = None
        self.done = False  # [DONE] read

    def line(self, line: str) -> str | None:
        """Reads one line of the stream; the text it adds, if any. ``NotACompletion`` for
        a data line that is not a completion chunk."""
        if not line.startswith("data:"):
            return None  # a comment, an event name, a blank line between events
        data = line[5:].strip()
        if data == "[DONE]":
            self.done = True
            return None
        try:
            chunk = _decode_chunk(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise NotACompletion from None
        if chunk.usage is not None:
            self._usage = chunk.usage
        if chunk.timings is not None:
            self._timings = chunk.timings
        if not chunk.choices:
            return None
        choice = chunk.choices[0]
        if choice.finish_reason is not None:
            self._finish_reason = choice.finish_reason
        text = choice.delta.content if choice.delta is not None else None
        if text:
            self._pieces.append(text)
            self._count += 1
        return text

    @property
    def cut_off(self) -> bool:
        """``[DONE]`` without a finish reason: the server stopped the answer before its end
        (llama-cpp-python does, with ``interrupt_requests`` on by default, as soon as
        another request waits); every server named here sends a finish reason first."""
        return self.done and self._finish_reason is None

    @property
    def ended(self) -> bool:
        """Whether the stream said it ended (a finish reason, or ``[DONE]``)."""
        return self.done or self._finish_reason is not None

    def completion(self, content: str | None = None) -> Completion:
        """The completion read; ``content``: what to give as its text instead (the answer
        closed before its first repeated record)."""
        repeated = content is not None
        return _completion(
            "".join(self._pieces) if content is None else content,
            "stop" if repeated else self._finish_reason,
            self._usage,
            self._timings,
            pieces=self._count,
            repeated=repeated,
        )

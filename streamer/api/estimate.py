"""``streamer run --estimate``: what a run's model stage would cost, before it starts.

The transcript is imported into a temporary folder and chunked as the run would; the
requests are every model lane's for every chunk, each with the prompt the run would send
(``requests.messages``). Their prompt tokens are counted by the server where it has a
tokenizer endpoint (llama.cpp's ``POST /tokenize``, llama-cpp-python's ``POST
/extras/tokenize``: the messages' text, without the chat template's few tokens a
message), else estimated at four characters a token (and the estimate says so). The time
comes from a probe (``_probed``): the first chunk's first lane, for real, timed (the run's
cold start: the model loaded, the structured-output mode probed), then the second chunk's
first two lanes (the first evaluates the chunk; the second finds it in the server's prompt
cache, as every later lane of a chunk does). The run's time is then ``cold + (chunks - 1)
x first + chunks x (lanes - 1) x second``, divided by the server's parallel slots where it
reports them (llama.cpp's ``/props``), else not divided: a server that does not say is
taken to answer one request at a time. With ``requests: combined`` (and more than one
model lane) a chunk is one request (``combined.combined_messages``), and the probe asks
the first two chunks' combined requests (the first is the cold start, the second finds
the questions in the server's cache, as every later chunk does): the time is ``first +
(chunks - 1) x second``. Nothing is published, nothing is cached.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamer.api.extraction import _api_key, _chunk_plan, _plan_lanes
from streamer.api.run_checks import check_transcript, checked_configuration
from streamer.api.transcripts import import_transcript
from streamer.configuration import Configuration
from streamer.extraction.combined import Part, combined_format, combined_messages
from streamer.extraction.negotiation import Negotiation
from streamer.extraction.requests import messages, request_body, response_format
from streamer.extraction.run import LanePlan
from streamer.extraction.server_facts import LLAMA_CPP, ServerFacts, discover, server_root
from streamer.extraction.transport import ChatTransport, FormatRefused, RequestFailed
from streamer.framework.errors.types import StreamerError
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.importers.formats import ImportOptions

CHARACTERS_PER_TOKEN = 4
TOKENIZE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Estimate:
    """What the model stage would send, and the time the probe measured."""

    chunks: int
    lanes: tuple[str, ...]
    requests: int
    prompt_tokens: int
    counted_by: str  # "server" or "estimate"
    probe_seconds: tuple[float, ...]
    slots: int | None
    seconds: float | None
    combined: bool = False  # one request a chunk for every model lane

    def receipt(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "chunks": self.chunks,
            "model_lanes": list(self.lanes),
            "requests": self.requests,
            "requests_mode": "combined" if self.combined else "per-lane",
            "prompt_tokens": self.prompt_tokens,
            "prompt_tokens_counted_by": self.counted_by,
            "probe_seconds": [round(each, 2) for each in self.probe_seconds],
            "server_slots": self.slots,
            "seconds": None if self.seconds is None else round(self.seconds),
        }


def estimate_run(
    config_path: str | os.PathLike[str] | None,
    transcript: str | os.PathLike[str],
    format_name: str | None,
    *,
    lanes: Sequence[str] | None = None,
    model_url: str | None = None,
    model: str | None = None,
    import_options: ImportOptions | None = None,
    glossary: str | os.PathLike[str] | None = None,
) -> Estimate:
    """The estimate of ``streamer run`` for ``transcript`` (the same usage errors)."""
    effective, run_lanes = checked_configuration(config_path, lanes, model_url, model, glossary)
    options = import_options or ImportOptions()
    path, format_name = check_transcript(transcript, format_name, options)
    with tempfile.TemporaryDirectory(prefix="streamer-estimate-") as folder:
        source = Path(folder) / "source.jsonl"
        import_transcript(
            format_name,
            path,
            output=source,
            unit=options.unit,
            speaker_prefix=options.speaker_prefix,
            dedupe_rolling=options.dedupe_rolling,
            speaker_carry=options.speaker_carry,
        )
        return estimate(effective.config, source, run_lanes)


def estimate(config: Configuration, source: Path, lanes: Sequence[str] | None) -> Estimate:
    """The estimate of the model lanes of ``config`` over the source document ``source``."""
    plans, _ = _plan_lanes(config, lanes)
    model_lanes = [plan for plan in plans if plan.extractor is None]
    settings = config.extraction
    with _chunk_plan(config, source, DEFAULT_BUFFER_SIZE) as plan:
        chunks = list(plan.chunks())
    names = tuple(lane.lane_id for lane in model_lanes)
    if not model_lanes or not chunks:
        return Estimate(len(chunks), names, 0, 0, "server", (), None, 0.0)
    assert settings.base_url is not None and settings.model is not None
    api_key = _api_key(config)
    facts = discover(settings.base_url, api_key)
    combined = settings.requests == "combined" and len(model_lanes) > 1
    asks = (
        _combined_asks(model_lanes, chunks, settings.max_tokens)
        if combined
        else _lane_asks(model_lanes, chunks)
    )
    texts = ["\n".join(message["content"] for message in ask.conversation) for ask in asks]
    counted = _server_tokens(settings.base_url, api_key, facts, texts)
    tokens = (
        sum(len(text) // CHARACTERS_PER_TOKEN + 1 for text in texts) if counted is None else counted
    )
    lanes_asked = 1 if combined else len(model_lanes)
    probed = [asks[index] for index in _probed(len(chunks), lanes_asked)]
    try:
        probe = asyncio.run(_probe(config, api_key, facts, probed))
    except RequestFailed as failed:
        raise StreamerError(
            f"the estimate's probe failed: {failed.reason}", hint=failed.hint
        ) from None
    except FormatRefused as refused:
        raise StreamerError(
            f"the estimate's probe failed: the server took no structured-output mode "
            f"(HTTP {refused.status})"
        ) from None
    seconds = _seconds(probe, len(chunks), lanes_asked) / (facts.slots or 1)
    return Estimate(
        len(chunks),
        names,
        len(texts),
        tokens,
        "estimate" if counted is None else "server",
        tuple(probe),
        facts.slots,
        seconds,
        combined,
    )


def _probed(chunks: int, lanes: int) -> list[int]:
    """The asks the probe sends (their indexes, chunk by chunk and lane by lane within a
    chunk): the first chunk's first lane, whose time is the run's cold start (the model
    loaded, the mode probed, the questions first evaluated); then, where there is a second
    chunk, its first lane (a chunk's units evaluated) and its second (the units found in
    the server's cache, as every next lane of a chunk finds them); else the first chunk's
    second lane."""
    if chunks > 1:
        return [0, lanes, lanes + 1][: 3 if lanes > 1 else 2]
    return [0, 1][: 2 if lanes > 1 else 1]


def _seconds(probe: Sequence[float], chunks: int, lanes: int) -> float:
    """The run's time from the probe's (``_probed``): the cold start once, each further
    chunk's first lane, every chunk's next lanes."""
    cold, *timed = probe
    if chunks > 1:
        first = timed[0]
        following = timed[1] if lanes > 1 else 0.0
        return cold + (chunks - 1) * first + chunks * (lanes - 1) * following
    return cold + (lanes - 1) * (timed[0] if timed else 0.0)


@dataclass(frozen=True)
class _Ask:
    """One request a run would send: its messages, its response format in a mode, and
    its ``max_tokens`` (``None``: the run's)."""

    conversation: list[dict[str, str]]
    format_for: Callable[[str], dict[str, Any] | None]
    max_tokens: int | None


def _lane_asks(lanes: list[LanePlan], chunks: Sequence[Any]) -> list[_Ask]:
    """Every model lane's request of every chunk, chunk by chunk, as a run asks them."""
    return [
        _Ask(
            messages(lane.spec.prompt, chunk.units),
            functools.partial(response_format, lane.kind),
            lane.max_tokens,
        )
        for chunk in chunks
        for lane in lanes
    ]


def _combined_asks(lanes: list[LanePlan], chunks: Sequence[Any], max_tokens: int) -> list[_Ask]:
    """One combined request a chunk, ``max_tokens`` the sum of the lanes' own or the run's
    ``max_tokens`` (as a run's)."""
    parts = [Part(lane.lane_id, lane.kind, lane.spec.prompt) for lane in lanes]
    total = sum(lane.max_tokens or max_tokens for lane in lanes)
    return [
        _Ask(
            combined_messages(parts, chunk.units),
            functools.partial(combined_format, parts),
            total,
        )
        for chunk in chunks
    ]


def _server_tokens(
    base_url: str, api_key: str | None, facts: ServerFacts, texts: list[str]
) -> int | None:
    """The tokens of ``texts`` by the server's tokenizer, or ``None`` where it has none."""
    import httpx

    root = server_root(base_url)
    llama_cpp = facts.software == LLAMA_CPP
    url = root + ("/tokenize" if llama_cpp else "/extras/tokenize")
    headers = {} if not api_key else {"Authorization": f"Bearer {api_key}"}
    total = 0
    with httpx.Client(headers=headers, timeout=TOKENIZE_TIMEOUT_S, trust_env=False) as client:
        for text in texts:
            body = {"content": text} if llama_cpp else {"input": text}
            try:
                response = client.post(url, json=body)
                found = response.json().get("tokens") if response.status_code == 200 else None
            except (httpx.HTTPError, ValueError, AttributeError):
                return None
            if not isinstance(found, list):
                return None
            total += len(found)
    return total


async def _probe(
    config: Configuration, api_key: str | None, facts: ServerFacts, asks: list[_Ask]
) -> list[float]:
    """The seconds of each of ``asks``, one after the other (the structured-output mode
    negotiated as a run would)."""
    settings = config.extraction
    assert settings.base_url is not None and settings.model is not None
    transport = ChatTransport(
        settings.base_url,
        api_key=api_key,
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
        concurrency=1,
        extra_body=facts.extra_body,
    )
    modes = Negotiation(settings.structured_output).modes
    index, seconds = 0, []
    try:
        for ask in asks:
            while True:
                format_ = ask.format_for(modes[index])
                body = request_body(
                    settings.model,
                    ask.conversation,
                    format_,
                    settings.temperature,
                    ask.max_tokens or settings.max_tokens,
                )
                started = time.monotonic()
                try:
                    await transport.complete(body, probe=format_ is not None)
                except FormatRefused:
                    if index + 1 >= len(modes):
                        raise
                    index += 1
                    continue
                seconds.append(time.monotonic() - started)
                break
    finally:
        await transport.aclose()
    return seconds

"""``streamer run --estimate``: what a run's model stage would cost, before it starts.

The transcript is imported into a temporary folder and chunked as the run would; the
requests are every model lane's for every chunk, each with the prompt the run would send
(``requests.messages``). Their prompt tokens are counted by the server where it has a
tokenizer endpoint (llama.cpp's ``POST /tokenize``, llama-cpp-python's ``POST
/extras/tokenize``: the messages' text, without the chat template's few tokens a
message), else estimated at four characters a token (and the estimate says so). The time
comes from a probe: the first chunk asked of its first two lanes, for real, timed (the
first request evaluates the chunk; the second finds it in the server's prompt cache, as
every later lane of a chunk does). The run's time is then ``chunks x (first + (lanes -
1) x second)``, divided by the server's parallel slots where it reports them (llama.cpp's
``/props``), else not divided: a server that does not say is taken to answer one request
at a time. Nothing is published, nothing is cached.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamer.api.extraction import _api_key, _chunk_plan, _plan_lanes
from streamer.api.run_checks import check_transcript, checked_configuration
from streamer.api.transcripts import import_transcript
from streamer.configuration import Configuration
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

    def receipt(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "chunks": self.chunks,
            "model_lanes": list(self.lanes),
            "requests": self.requests,
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
    texts = [
        "\n".join(message["content"] for message in messages(lane.spec.prompt, chunk.units))
        for chunk in chunks
        for lane in model_lanes
    ]
    counted = _server_tokens(settings.base_url, api_key, facts, texts)
    tokens = (
        sum(len(text) // CHARACTERS_PER_TOKEN + 1 for text in texts) if counted is None else counted
    )
    try:
        probe = asyncio.run(_probe(config, api_key, facts, model_lanes[:2], chunks[0]))
    except RequestFailed as failed:
        raise StreamerError(
            f"the estimate's probe failed: {failed.reason}", hint=failed.hint
        ) from None
    except FormatRefused as refused:
        raise StreamerError(
            f"the estimate's probe failed: the server took no structured-output mode "
            f"(HTTP {refused.status})"
        ) from None
    first = probe[0]
    following = probe[-1] if len(probe) > 1 else first
    seconds = len(chunks) * (first + (len(model_lanes) - 1) * following) / (facts.slots or 1)
    return Estimate(
        len(chunks),
        names,
        len(texts),
        tokens,
        "estimate" if counted is None else "server",
        tuple(probe),
        facts.slots,
        seconds,
    )


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
    config: Configuration,
    api_key: str | None,
    facts: ServerFacts,
    lanes: list[LanePlan],
    chunk: Any,
) -> list[float]:
    """The seconds of the chunk's request to each of ``lanes``, one after the other (the
    structured-output mode negotiated as a run would)."""
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
        for lane in lanes:
            while True:
                format_ = response_format(lane.kind, modes[index])
                body = request_body(
                    settings.model,
                    messages(lane.spec.prompt, chunk.units),
                    format_,
                    settings.temperature,
                    lane.max_tokens or settings.max_tokens,
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

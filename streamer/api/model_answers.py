"""The model lanes' answers of an extraction run, asked of the server into the cache.

``api.extraction`` imports this module only when a run has model lanes, so that a run
whose lanes are all local (``engine: rules``) never imports the server's client, its
retries or asyncio (tests/test_startup_imports.py)."""

from __future__ import annotations

from streamer.configuration.extraction_settings import ExtractionConfig
from streamer.extraction.cache import ResponseCache
from streamer.extraction.chunks import ChunkPlan
from streamer.extraction.combined_run import CombinedAsker
from streamer.extraction.run import ChunkProgress, LanePlan, ModelAsker, ModelSettings
from streamer.extraction.server_facts import discover
from streamer.extraction.transport import ChatTransport


def ask_models(
    settings: ExtractionConfig,
    plan: ChunkPlan,
    lanes: list[LanePlan],
    cache: ResponseCache,
    api_key: str | None,
    *,
    reuse: bool,
    progress: ChunkProgress,
) -> None:
    """Ask the server (``settings``: ``pipeline.extraction``, checked) for every chunk of
    every model lane in ``lanes`` that has no answer in ``cache`` (``reuse``: a cached
    answer is kept), one lane at a time or combined (``requests``)."""
    assert settings.base_url is not None and settings.model is not None
    facts = discover(settings.base_url, api_key)
    concurrency = facts.concurrency(settings.concurrency_auto, settings.concurrency)
    transport = ChatTransport(
        settings.base_url,
        api_key=api_key,
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
        concurrency=concurrency,
        requests_per_minute=settings.requests_per_minute,
        extra_body=facts.extra_body,
    )
    model = ModelSettings(
        settings.model,
        settings.structured_output,
        settings.temperature,
        concurrency,
        settings.max_retries,
        settings.max_tokens,
        settings.stop_repeats,
    )
    asker = CombinedAsker if settings.requests == "combined" else ModelAsker
    asker(plan, lanes, cache, model, transport, reuse=reuse, progress=progress).ask()
    if transport.in_flight_limit < concurrency:  # the server queued requests: slots.py
        for lane in lanes:
            lane.stats.in_flight_lowered_to = transport.in_flight_limit

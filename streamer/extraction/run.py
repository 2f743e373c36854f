"""One extraction run: every lane over every chunk, then the candidates files.

1. Model lanes (``engine: openai``): each chunk's answer is taken from the cache, or asked
   for (at most ``concurrency`` requests in flight, chunk by chunk and, within a chunk,
   lane by lane, so that a server's prompt cache still holds the chunk when its next lane
   asks), validated, asked again once when it is invalid, and stored in the cache as soon
   as it is valid. The structured-output mode is negotiated once (``negotiation``). A lane
   one of whose chunks fails (refused, retries exhausted, invalid twice) stops asking and
   is *failed*.
2. Then, for every lane that did not fail, its candidates file is written in chunk order
   from the cache (or, for a local engine's lane, ``engine: rules`` or a plugin's, from its
   chunk extractor), whatever order the answers arrived in. A failed lane writes no file.
   A lane with several engines (``engine: [rules, openai]``) is one plan per engine, and
   one file: each candidate names its engine; an engine that failed is left out of it
   (its receipt entry says so), and only a lane whose every engine failed writes none.

Nothing is written into the output folder until every answer is in, so an interrupted run
leaves the candidates files as they were and the cache with every answer it received.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamer.extraction.cache import ResponseCache, cache_key
from streamer.extraction.chunks import ChunkPlan, ExtractionChunk
from streamer.extraction.requests import (
    ask_again,
    ask_shorter,
    messages,
    request_body,
    response_format,
)
from streamer.extraction.responses import TRUNCATED, InvalidAnswer, parse_answer
from streamer.extraction.server_figures import ServerFigures
from streamer.extraction.transport_errors import FormatRefused, RequestFailed, ServerFailed
from streamer.framework.kinds.engines import ChunkExtractor, Engine
from streamer.framework.kinds.extraction_spec import ExtractionSpec
from streamer.framework.kinds.registry import ArtifactKind

if TYPE_CHECKING:  # asyncio and the server's client: imported by ModelAsker, when it asks
    import asyncio

    from streamer.extraction.transport import ChatTransport, Completion

    Jobs = asyncio.Queue[tuple["LanePlan", ExtractionChunk] | None]

OPENAI = Engine("openai", "a model behind any OpenAI-compatible server, asked chunk by chunk")
"""The model engine: its lanes are asked by ``ModelAsker`` (``streamer.engines`` entry point).
A run whose lanes are all local (``engine: rules``) imports this module for ``LanePlan``,
never asyncio nor the server's client (tests/test_startup_imports.py)."""
# the remedy for an answer cut at max_tokens twice: most often a model writing one record
# again and again (docs/extraction.md, "Stopping an answer that repeats a record")
STOP_REPEATS_HINT = (
    "a model that writes one record again and again is stopped there with "
    "pipeline.extraction.stop_repeats: true"
)
ChunkProgress = Callable[[str, int, int], None]
"""``progress(lane_id, chunks_done, chunk_total)``, called as chunks complete."""


@dataclass
class LaneStats:
    """What the receipt says of one lane."""

    chunks: int = 0
    candidates: int = 0
    cache_hits: int = 0
    requests: int = 0
    combined_requests: int = 0  # requests that asked it with other lanes (``combined``)
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None  # None: the server never said
    truncated: int = 0
    stopped_at_repeat: int = 0  # answers stopped at their first repeated record
    # the run's requests in flight, once a server that queued them lowered it (``slots``)
    in_flight_lowered_to: int | None = None
    structured_output: str | None = None
    failures: list[dict[str, str]] = field(default_factory=list)
    server: ServerFigures = field(default_factory=ServerFigures)

    def add(self, completion: Completion) -> None:
        self.server.add(completion.timings)
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        if completion.cached_tokens is not None:
            self.cached_tokens = (self.cached_tokens or 0) + completion.cached_tokens


@dataclass
class LanePlan:
    """One lane of the run, resolved: its kind, engine and what identifies its answers."""

    lane_id: str
    kind: ArtifactKind[Any]
    spec: ExtractionSpec
    engine: str
    model: str | None
    prompt_id: str
    parameters: dict[str, Any]
    extractor: ChunkExtractor | None = None  # a local engine's; None: a model lane
    max_tokens: int | None = None
    stats: LaneStats = field(default_factory=LaneStats)
    output: Path | None = None
    mode_index: int | None = None  # the lane's own structured-output mode, once it has one
    accepted: bool = False  # the server accepted one of its requests
    modes: dict[str, str] = field(default_factory=dict)  # chunk ID -> its answer's mode
    keys: dict[str, str] = field(default_factory=dict)  # chunk ID -> a combined answer's key
    note: str | None = None

    @property
    def failed(self) -> bool:
        return bool(self.stats.failures)

    def key(self, chunk: ExtractionChunk, mode: str, asked: list[Any] | None = None) -> str:
        """The cache key of the chunk's answer asked in structured-output ``mode``; ``asked``:
        the lanes asked with it in one request (``combined``)."""
        parameters = {**self.parameters, "structured_output": mode}
        if asked is not None:
            parameters["requests"] = asked
        return cache_key(
            lane_id=self.lane_id,
            kind=self.kind,
            prompt_id=self.prompt_id,
            engine=self.engine,
            model=self.model or "",
            parameters=parameters,
            chunk_digest=chunk.digest,
        )

    def receipt(self) -> dict[str, Any]:
        stats = self.stats
        return {
            "lane_id": self.lane_id,
            "artifact_kind": self.kind.name,
            "engine": self.engine,
            "model": self.model,
            "prompt": self.prompt_id,
            "structured_output": stats.structured_output,
            "max_tokens": self.max_tokens,
            "status": "failed" if self.failed else "ok",
            "file": None if self.output is None else self.output.name,
            "chunks": stats.chunks,
            "candidates": stats.candidates,
            "cache_hits": stats.cache_hits,
            "requests": stats.requests,
            **({"combined_requests": stats.combined_requests} if stats.combined_requests else {}),
            "retries": stats.retries,
            "prompt_tokens": stats.prompt_tokens,
            "completion_tokens": stats.completion_tokens,
            "cached_tokens": stats.cached_tokens,
            "truncated": stats.truncated,
            **({"stopped_at_repeat": stats.stopped_at_repeat} if stats.stopped_at_repeat else {}),
            **(
                {}
                if stats.in_flight_lowered_to is None
                else {"in_flight_lowered_to": stats.in_flight_lowered_to}
            ),
            "failures": sorted(stats.failures, key=lambda failure: failure["chunk_id"]),
            **stats.server.receipt(),
            **({} if self.note is None else {"note": self.note}),
        }


@dataclass(frozen=True)
class ModelSettings:
    """How model lanes are asked (``pipeline.extraction``, checked)."""

    model: str
    structured_output: str
    temperature: float
    concurrency: int
    max_retries: int
    max_tokens: int
    stop_repeats: bool = False


class ModelAsker:
    """Asks for the model lanes' answers and stores them in the cache: ``ask()`` fills the
    cache with an answer for every chunk of every model lane that can get one."""

    def __init__(
        self,
        plan: ChunkPlan,
        lanes: list[LanePlan],
        cache: ResponseCache,
        settings: ModelSettings,
        transport: ChatTransport,
        *,
        reuse: bool,
        progress: ChunkProgress,
    ) -> None:
        self._plan = plan
        self._lanes = lanes
        self._cache = cache
        self._settings = settings
        self._transport = transport
        self._reuse = reuse
        self._progress = progress
        from streamer.extraction.negotiation import Negotiation

        self._negotiation = Negotiation(settings.structured_output)

    def ask(self) -> None:
        from streamer.extraction.signals import run_until_signal

        async def main() -> None:
            try:
                await self._run()
            finally:
                await self._transport.aclose()

        try:
            run_until_signal(main)
        except ExceptionGroup as group:  # one worker's unexpected failure: report it as such
            raise group.exceptions[0] from None

    async def _run(self) -> None:
        """Workers take (lane, chunk) jobs from a bounded queue, so that only the chunks in
        flight are held; a worker that fails unexpectedly stops the run (``TaskGroup``)."""
        import asyncio

        workers = self._settings.concurrency * 2
        queue: Jobs = asyncio.Queue(maxsize=workers)
        async with asyncio.TaskGroup() as group:
            for _ in range(workers):
                group.create_task(self._work(queue))
            for chunk in self._plan.chunks():
                for lane in self._lanes:
                    if lane.failed:
                        continue
                    if self._reuse and self._cached(lane, chunk):
                        lane.stats.cache_hits += 1
                        self._done(lane)
                        continue
                    await queue.put((lane, chunk))
                    await self._negotiation.wait()  # the first request is asked alone
            for _ in range(workers):
                await queue.put(None)

    def _cached(self, lane: LanePlan, chunk: ExtractionChunk) -> bool:
        """Whether the chunk has a cached answer in a mode the run may send (``auto``: any,
        in the order they are tried)."""
        for mode in self._negotiation.modes:
            if self._cache.read(lane.kind, lane.lane_id, lane.key(chunk, mode)) is not None:
                lane.stats.structured_output = lane.modes[chunk.chunk_id] = mode
                return True
        return False

    def _done(self, lane: LanePlan) -> None:
        lane.stats.chunks += 1
        self._progress(lane.lane_id, lane.stats.chunks, self._plan.chunk_count)

    async def _work(self, queue: Jobs) -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            lane, chunk = job
            if not lane.failed:
                await self._one(lane, chunk)

    async def _one(self, lane: LanePlan, chunk: ExtractionChunk) -> None:
        """The lane's answer for the chunk, asked alone, in the cache; or its failure."""
        try:
            records, mode = await self._ask(lane, chunk)
        except (RequestFailed, InvalidAnswer) as error:
            self._fail([lane], chunk, error)
            return
        self._cache.write(lane.lane_id, lane.key(chunk, mode), records)
        lane.modes[chunk.chunk_id] = mode
        self._done(lane)

    def _fail(
        self, lanes: list[LanePlan], chunk: ExtractionChunk, error: RequestFailed | InvalidAnswer
    ) -> None:
        reason = error.problem if isinstance(error, InvalidAnswer) else error.reason
        failure = {"chunk_id": chunk.chunk_id, "reason": reason}
        if error.hint:
            failure["hint"] = error.hint
        # what every request would meet fails every lane now: nothing more is asked
        failing = self._lanes if isinstance(error, ServerFailed) else lanes
        for each in failing:
            if not each.failed:
                each.stats.failures.append(failure)

    async def _ask(
        self, lane: LanePlan, chunk: ExtractionChunk
    ) -> tuple[list[dict[str, Any]], str]:
        """The chunk's records and the mode they were asked in; the run's first request
        settles the negotiation, whatever its outcome."""
        try:
            return await self._ask_lane(lane, chunk)
        finally:
            self._negotiation.settle()

    async def _ask_lane(
        self, lane: LanePlan, chunk: ExtractionChunk
    ) -> tuple[list[dict[str, Any]], str]:
        negotiation = self._negotiation
        sends = 0

        def sent() -> None:
            nonlocal sends
            sends += 1
            lane.stats.requests += 1

        try:
            while True:
                index = negotiation.index if lane.mode_index is None else lane.mode_index
                mode = negotiation.modes[index]
                try:
                    return await self._ask_in_mode(lane, chunk, mode, sent), mode
                except FormatRefused as refused:
                    following = negotiation.next_index(index)
                    if following is None:
                        raise RequestFailed(
                            f"the server refused the request format (structured_output: {mode}, "
                            f"HTTP {refused.status})",
                            hint=negotiation.refused_hint(mode),
                        ) from None
                    lane.mode_index = max(lane.mode_index or 0, following)
                    if not negotiation.settled:
                        negotiation.index = max(negotiation.index, following)
        finally:
            lane.stats.retries += max(0, sends - 1)

    async def _ask_in_mode(
        self, lane: LanePlan, chunk: ExtractionChunk, mode: str, sent: Callable[[], None]
    ) -> list[dict[str, Any]]:
        settings = self._settings
        stats = lane.stats
        max_tokens = lane.max_tokens or settings.max_tokens
        format_ = response_format(lane.kind, mode, [unit.unit_id for unit in chunk.units])

        async def complete(conversation: list[dict[str, str]]) -> Completion:
            body = request_body(
                settings.model, conversation, format_, settings.temperature, max_tokens
            )
            probe = not lane.accepted and format_ is not None
            completion = await self._transport.complete(
                body, sent, probe=probe, stop_repeats=settings.stop_repeats
            )
            lane.accepted = True
            stats.structured_output = mode
            stats.add(completion)
            if completion.finish_reason == "length":
                stats.truncated += 1
            stats.stopped_at_repeat += completion.repeated
            return completion

        conversation = messages(lane.spec.prompt, chunk.units)
        completion = await complete(conversation)
        try:
            return parse_answer(lane.kind, completion.content, completion.finish_reason)
        except InvalidAnswer as invalid:
            if settings.max_retries < 1:
                raise InvalidAnswer(f"{invalid.problem} (max_retries is 0)") from None
            if invalid.problem == TRUNCATED:  # the cut answer is no use: ask for a shorter one
                again = ask_shorter(conversation)
            else:
                again = ask_again(conversation, completion.content or "", invalid.problem)
            completion = await complete(again)
            try:
                return parse_answer(lane.kind, completion.content, completion.finish_reason)
            except InvalidAnswer as twice:
                looped = twice.problem == TRUNCATED and not settings.stop_repeats
                raise InvalidAnswer(
                    f"{twice.problem} (asked again once)", STOP_REPEATS_HINT if looped else None
                ) from None

"""Asking every model lane of a chunk in one request (``requests: combined``).

``CombinedAsker`` is ``ModelAsker`` with one job per chunk instead of one per chunk and
lane: the lanes of the chunk without a cached answer are asked together
(``combined``), and the answer is split back lane by lane into the cache, each lane's
records stored as its own answer, keyed by the run's model lanes (``LanePlan.key``'s
``asked``: every model lane of the run, even when one that failed earlier was not asked
with it) so that a rerun with the same lanes finds them and a change of lanes asks
again. A chunk that only one lane still needs is asked as per-lane requests ask it.

A lane whose part is invalid (missing, not its records, or cut at ``max_tokens``: the
members written whole before the cut are kept) is asked again alone, as a per-lane
request (and fails alone, as a per-lane lane would); the others keep their part. The lanes
an answer stopped at a repeated record (``stop_repeats``) never reached are asked again
together, with the same questions and units (``combined.REST_INTRO``), while two or more
are left and each answer reaches one more. The
structured-output mode is negotiated as for single lanes: the first combined request is
the probe, a refused format tries the next mode, and a chunk whose every mode was
refused asks its lanes alone. Each lane's receipt counts the combined requests it was in
(``combined_requests``) and an even share of their tokens and of the server's own figures
(llama.cpp's ``timings``), so that the lanes' sums are the server's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from streamer.extraction.chunks import ExtractionChunk
from streamer.extraction.combined import (
    LAYOUT,
    Part,
    combined_format,
    combined_messages,
    split_answer,
)
from streamer.extraction.cut_answer import complete_members
from streamer.extraction.requests import request_body
from streamer.extraction.responses import TRUNCATED, InvalidAnswer
from streamer.extraction.run import LanePlan, ModelAsker
from streamer.extraction.server_figures import ServerTimings
from streamer.extraction.transport import Completion, FormatRefused, RequestFailed

Job = tuple[list[LanePlan], ExtractionChunk] | None


def shares(total: int, count: int) -> list[int]:
    """``total`` in ``count`` near-even integer shares, the larger first; they sum to it."""
    each, rest = divmod(total, count)
    return [each + (1 if index < rest else 0) for index in range(count)]


class CombinedAsker(ModelAsker):
    """``ModelAsker`` asking a chunk's model lanes in one request."""

    _mode_index: int | None = None  # the combined requests' own mode, once refused one
    _accepted = False  # the server accepted a combined request

    async def _run(self) -> None:
        """One worker a request in flight (``concurrency``), each asking its chunk's
        combined request and then whatever lane must be asked again alone, so that a
        server's prompt cache (one per slot) still holds the chunk when a lane is asked
        again: two chunks worked at once on one slot would evict each other's units."""
        workers = self._settings.concurrency
        queue: asyncio.Queue[Job] = asyncio.Queue(maxsize=workers)
        async with asyncio.TaskGroup() as group:
            for _ in range(workers):
                group.create_task(self._work_chunks(queue))
            for chunk in self._plan.chunks():
                asked = [lane for lane in self._lanes if not lane.failed]
                if self._reuse:
                    asked = [lane for lane in asked if not self._hit(lane, chunk)]
                if asked:
                    await queue.put((asked, chunk))
                    await self._negotiation.wait()  # the first request is asked alone
            for _ in range(workers):
                await queue.put(None)

    def _hit(self, lane: LanePlan, chunk: ExtractionChunk) -> bool:
        """Whether the chunk has the lane's answer, asked with every model lane of the run
        or alone (``_cached``)."""
        everyone = asked_lanes(self._lanes)
        for mode in self._negotiation.modes:
            key = lane.key(chunk, mode, everyone)
            if self._cache.read(lane.kind, lane.lane_id, key) is not None:
                lane.stats.structured_output = lane.modes[chunk.chunk_id] = mode
                lane.keys[chunk.chunk_id] = key
                break
        else:
            if not self._cached(lane, chunk):
                return False
        lane.stats.cache_hits += 1
        self._done(lane)
        return True

    async def _work_chunks(self, queue: asyncio.Queue[Job]) -> None:
        while True:
            job = await queue.get()
            if job is None:
                return
            lanes, chunk = job
            lanes = [lane for lane in lanes if not lane.failed]
            if len(lanes) == 1:
                await self._one(lanes[0], chunk)
            elif lanes:
                await self._combined(lanes, chunk)

    async def _combined(self, lanes: list[LanePlan], chunk: ExtractionChunk) -> None:
        """The lanes' answers from one request, in the cache; the lanes an answer stopped
        at a repeated record never reached asked together again, with the same questions
        (while two or more are left); a lane whose part is invalid asked again alone."""
        rest: list[LanePlan] | None = None  # the lanes not reached, once an answer stopped
        again: list[LanePlan] = []
        while True:
            asking = lanes if rest is None else rest
            try:
                asked = await self._ask_combined(lanes, chunk, rest)
            except RequestFailed as error:
                self._fail(asking, chunk, error)
                return
            finally:
                self._negotiation.settle()
            if asked is None:  # every mode refused: each lane alone, as per-lane requests
                again += asking
                break
            completion, mode = asked
            invalid, unreached = self._store(asking, chunk, completion, mode)
            again += invalid
            if len(unreached) < 2 or len(unreached) == len(asking):  # one left, or no progress
                again += unreached
                break
            rest = unreached
        for lane in again:
            if lane.failed:
                continue
            if self._settings.max_retries < 1:
                problem = "its part of a combined answer was invalid (max_retries is 0)"
                self._fail([lane], chunk, InvalidAnswer(problem))
                continue
            if lane.stats.combined_requests:
                lane.stats.retries += 1
            await self._one(lane, chunk)

    async def _ask_combined(
        self, lanes: list[LanePlan], chunk: ExtractionChunk, rest: list[LanePlan] | None = None
    ) -> tuple[Completion, str] | None:
        """The combined answer and its mode (to ``rest`` of the ``lanes``' questions, when
        given); ``None`` when the server refused every mode."""
        settings = self._settings
        negotiation = self._negotiation
        questions = [Part(lane.lane_id, lane.kind, lane.spec.prompt) for lane in lanes]
        asking = lanes if rest is None else rest
        parts = [Part(lane.lane_id, lane.kind, lane.spec.prompt) for lane in asking]
        conversation = combined_messages(questions, chunk.units, None if rest is None else parts)
        max_tokens = sum(lane.max_tokens or settings.max_tokens for lane in asking)

        def sent() -> None:
            for lane in asking:
                lane.stats.combined_requests += 1

        while True:
            index = negotiation.index if self._mode_index is None else self._mode_index
            mode = negotiation.modes[index]
            format_ = combined_format(parts, mode, [unit.unit_id for unit in chunk.units])
            body = request_body(
                settings.model, conversation, format_, settings.temperature, max_tokens
            )
            probe = not self._accepted and format_ is not None
            try:
                completion = await self._transport.complete(
                    body, sent, probe=probe, stop_repeats=settings.stop_repeats
                )
            except FormatRefused:
                following = negotiation.next_index(index)
                if following is None:
                    return None
                self._mode_index = max(self._mode_index or 0, following)
                if not negotiation.settled:
                    negotiation.index = max(negotiation.index, following)
                continue
            self._accepted = True
            return completion, mode

    def _store(
        self, lanes: list[LanePlan], chunk: ExtractionChunk, completion: Completion, mode: str
    ) -> tuple[list[LanePlan], list[LanePlan]]:
        """Each valid part in the cache as its lane's answer; the lanes whose part is
        invalid, and those an answer stopped at a repeated record never reached."""
        count = len(lanes)
        prompt = shares(completion.prompt_tokens, count)
        answer = shares(completion.completion_tokens, count)
        said = completion.cached_tokens
        cached = None if said is None else shares(said, count)
        parts = [Part(lane.lane_id, lane.kind, lane.spec.prompt) for lane in lanes]
        split = split_answer(parts, completion.content, completion.finish_reason)
        # stopped at a repeated record: the last member written is the one that repeated
        written = complete_members(completion.content or "") if completion.repeated else {}
        stopped = list(written)[-1:]
        unreached = [lane for lane in lanes if written and lane.lane_id not in written]
        # keyed by every model lane of the run, not only those asked in this request: a
        # lane that failed earlier leaves the others' keys as a rerun looks them up
        asked = asked_lanes(self._lanes)
        invalid: list[LanePlan] = []
        for index, lane in enumerate(lanes):
            stats = lane.stats
            stats.structured_output = mode
            stats.prompt_tokens += prompt[index]
            stats.completion_tokens += answer[index]
            if cached is not None:
                stats.cached_tokens = (stats.cached_tokens or 0) + cached[index]
            stats.server.add(share_of(completion.timings, index, count))
            stats.stopped_at_repeat += lane.lane_id in stopped
            records = split[lane.lane_id]
            if isinstance(records, InvalidAnswer):
                if lane in unreached:
                    continue
                if records.problem == TRUNCATED:  # its part was cut
                    stats.truncated += 1
                invalid.append(lane)
                continue
            key = lane.key(chunk, mode, asked)
            self._cache.write(lane.lane_id, key, records)
            lane.modes[chunk.chunk_id] = mode
            lane.keys[chunk.chunk_id] = key
            self._done(lane)
        return invalid, unreached


def share_of(timings: ServerTimings | None, index: int, count: int) -> ServerTimings | None:
    """The ``index``-th of ``count`` shares of a combined request's server figures: the
    tokens as ``shares`` splits them, the milliseconds evenly (so the lanes' sums are the
    server's)."""
    if timings is None:
        return None
    evaluated = timings.prompt_evaluated
    return ServerTimings(
        None if evaluated is None else shares(evaluated, count)[index],
        None if timings.prompt_ms is None else timings.prompt_ms / count,
        None if timings.predicted_ms is None else timings.predicted_ms / count,
    )


def asked_lanes(lanes: list[LanePlan]) -> list[Any]:
    """What a combined answer depends on: the request's layout, and of the lanes asked
    together each one's ID, kind (and its version) and prompt, in the order they were
    asked."""
    return [
        LAYOUT,
        *([lane.lane_id, lane.kind.name, lane.kind.version, lane.prompt_id] for lane in lanes),
    ]

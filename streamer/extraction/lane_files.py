"""The candidates files of an extraction run (``write_lane_files``): every lane that did
not fail, in chunk order, from the rules' answers or the model's cached ones."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from streamer.extraction.cache import ResponseCache
from streamer.extraction.candidates import (
    CandidatesWriter,
    candidates_file,
    candidates_path,
    lane_headers,
)
from streamer.extraction.chunks import ChunkPlan, ExtractionChunk
from streamer.extraction.rules_pool import chunk_answers
from streamer.extraction.run import ChunkProgress, LanePlan
from streamer.extraction.survey import survey
from streamer.framework.errors.types import StreamerError
from streamer.framework.kinds.extraction_spec import RulesContext


def write_lane_files(
    plan: ChunkPlan,
    lanes: list[LanePlan],
    cache: ResponseCache,
    output_dir: Path,
    context: RulesContext,
    progress: ChunkProgress,
    jobs: int = 1,
) -> None:
    """The candidates file of every lane that did not fail, in chunk order, all of them in
    one pass over the chunks (each rules lane answers a chunk as it goes by, on ``jobs``
    processes: ``rules_pool``), after a
    first pass when a rules lane surveys the session (``SurveyingRules``); a rules lane
    that can find nothing with this context says why in its receipt (``note``). A lane
    with several engines (a plan each, adjacent) writes one file, each chunk's records
    engine by engine, each naming its engine; an engine that failed gives none of its
    candidates (the others' are written: the rules' records survive a model that fails)."""
    writing = [lane for lane in lanes if not lane.failed]
    survey(plan, [lane.extractor for lane in writing], context)
    for lane in writing:
        note = getattr(lane.extractor, "note", None)  # optional for a plugin's engine
        if callable(note):
            lane.note = note(context)
    if not writing:
        return
    heads, several = lane_headers(
        plan.document_id,
        plan.semantic_digest,
        [
            (lane.lane_id, lane.kind.name, lane.engine, lane.model, lane.prompt_id)
            for lane in writing
        ],
    )
    with contextlib.ExitStack() as files:
        writers: dict[str, CandidatesWriter] = {}
        for lane_id, head in heads.items():
            path = candidates_path(output_dir, lane_id)
            writers[lane_id] = files.enter_context(candidates_file(path, head))
        local = [lane for lane in writing if lane.extractor is not None]
        for chunk, answers in chunk_answers(plan, local, context, jobs):
            answered = dict(zip(map(id, local), answers, strict=True))
            for lane in writing:
                records = _records(plan, lane, chunk, cache, answered.get(id(lane)), progress)
                engine = lane.engine if lane.lane_id in several else None
                writers[lane.lane_id].add(chunk.chunk_id, records, engine)
                lane.stats.candidates += len(records)
    for lane in writing:
        lane.output = candidates_path(output_dir, lane.lane_id)


def _records(
    plan: ChunkPlan,
    lane: LanePlan,
    chunk: ExtractionChunk,
    cache: ResponseCache,
    answered: list[dict[str, Any]] | None,
    progress: ChunkProgress,
) -> list[dict[str, Any]]:
    """The lane's answer for ``chunk``: its rules' records (``answered``), or the model's
    cached answer."""
    if answered is not None:
        records = answered
        for index, record in enumerate(records):  # a bug in the engine, not bad input
            lane.kind.parse_model_record(record, f"$.records[{index}]")
        lane.stats.chunks += 1
        progress(lane.lane_id, lane.stats.chunks, plan.chunk_count)
        return records
    mode = lane.modes.get(chunk.chunk_id)
    key = lane.keys.get(chunk.chunk_id) or (None if mode is None else lane.key(chunk, mode))
    cached = None if key is None else cache.read(lane.kind, lane.lane_id, key)
    if cached is None:
        raise StreamerError(
            f"lane {lane.lane_id}: the cached answer of {chunk.chunk_id} disappeared "
            "during the run",
            hint="do not share a cache folder between runs at the same time",
        )
    return cached

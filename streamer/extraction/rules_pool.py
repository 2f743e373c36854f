"""The local engines' answers of every chunk, on several processes (``--jobs N``).

A rules lane (``engine: rules``, or a plugin's chunk extractor) answers each chunk from
the chunk alone and the run's ``RulesContext``, once the survey pass (``survey``) has
filled it: its answer depends on no other chunk. So with ``jobs`` > 1 the chunks, cut in
this process as ``--jobs 1`` cuts them, go in tasks of ``TASK_CHUNKS`` chunks to an
``OrderedPool`` (``framework.processes.ordered_pool``) of ``jobs - 1`` worker processes,
forked after the survey (each holds the extractors and the context as they are then),
and to this process itself (``local``); the answers come back in chunk order. The units go
out and the records come back MessagePack encoded: strings, numbers, lists and mappings
(in their order) come back as they went, so the candidates files hold the bytes of
``--jobs 1``. A task whose answer raised in a worker is answered again here, which
raises the error ``--jobs 1`` raises. A daemonic process (a Dask worker's) may not start
processes: it answers every chunk itself.
"""

from __future__ import annotations

import collections
import multiprocessing
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import msgspec

from streamer.extraction.chunks import ChunkPlan, ExtractionChunk
from streamer.framework.kinds.engines import ChunkExtractor
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.processes.ordered_pool import OrderedPool, Part

TASK_CHUNKS = 16  # the chunks handed to a worker at once (1,600 units at the default size)

Records = list[dict[str, Any]]
_encode = msgspec.msgpack.Encoder().encode
_decode_units = msgspec.msgpack.Decoder(list[tuple[ShownUnit, ...]]).decode
_decode_answers = msgspec.msgpack.Decoder().decode  # what went: no type to check


class LocalLane(Protocol):
    """A lane answered in this run by a chunk extractor (``LanePlan`` with one)."""

    @property
    def extractor(self) -> ChunkExtractor | None: ...


def _answers(
    lanes: Sequence[LocalLane], units: tuple[ShownUnit, ...], context: RulesContext
) -> list[Records]:
    answers = []
    for lane in lanes:
        assert lane.extractor is not None, "only the lanes of a local engine"
        answers.append(lane.extractor(units, context))
    return answers


def chunk_answers(
    plan: ChunkPlan, lanes: Sequence[LocalLane], context: RulesContext, jobs: int = 1
) -> Iterator[tuple[ExtractionChunk, list[Records]]]:
    """Each chunk of ``plan``, in order, with the records of each of ``lanes`` for it (in
    the order of ``lanes``), computed by ``jobs`` processes: this one and ``jobs - 1``
    workers."""
    if jobs <= 1 or not lanes or multiprocessing.current_process().daemon:
        for chunk in plan.chunks():
            yield chunk, _answers(lanes, chunk.units, context)
        return

    def work(task: bytearray) -> Sequence[Part]:
        if not task:
            return [_encode(None)]
        try:
            return [_encode([_answers(lanes, units, context) for units in _decode_units(task)])]
        except Exception:  # answered again in the main process, which raises it
            return [_encode(None)]

    taken: collections.deque[list[ExtractionChunk]] = collections.deque()
    with OrderedPool(jobs - 1, work) as pool:
        for _, message in pool.map(_tasks(plan, taken), local=True):
            chunks = taken.popleft()
            answers: list[list[Records]] | None = _decode_answers(message)
            if answers is None:
                answers = [_answers(lanes, chunk.units, context) for chunk in chunks]
            yield from zip(chunks, answers, strict=True)


def _tasks(plan: ChunkPlan, taken: collections.deque[list[ExtractionChunk]]) -> Iterator[bytes]:
    """The chunks of ``plan``, ``TASK_CHUNKS`` a task; each task's chunks are appended to
    ``taken``."""
    chunks: list[ExtractionChunk] = []
    for chunk in plan.chunks():
        chunks.append(chunk)
        if len(chunks) == TASK_CHUNKS:
            taken.append(chunks)
            yield _task(chunks)
            chunks = []
    if chunks:
        taken.append(chunks)
        yield _task(chunks)


def _task(chunks: list[ExtractionChunk]) -> bytes:
    """The units of ``chunks``; empty (answered in this process) when a text cannot be
    encoded (a lone surrogate: no document the import accepts holds one)."""
    try:
        return _encode([each.units for each in chunks])
    except (UnicodeEncodeError, TypeError, OverflowError):
        return b""

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

import multiprocessing
import os
import struct
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import msgspec

from streamer.extraction.chunks import ChunkPlan, ExtractionChunk
from streamer.framework.kinds.engines import ChunkExtractor
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from streamer.framework.processes.ordered_pool import OrderedPool, Part

_HEAD = struct.Struct("<Q?")  # a task's number, and whether its units follow
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
    here = os.getpid()
    waiting: dict[int, list[ExtractionChunk]] = {}  # the chunks of each task not taken back
    done_here: dict[int, list[list[Records]] | None] = {}  # the answers of this process

    def work(task: bytearray) -> Sequence[Part]:
        number, encoded = _HEAD.unpack_from(task)
        if os.getpid() == here:  # the chunks are at hand: nothing to decode or encode
            done_here[number] = _answered(lanes, waiting[number], context)
            return []
        if not encoded:
            return [_encode(None)]
        try:
            units = _decode_units(memoryview(task)[_HEAD.size :])
            return [_encode([_answers(lanes, each, context) for each in units])]
        except Exception:  # answered again in the main process, which raises it
            return [_encode(None)]

    with OrderedPool(jobs - 1, work) as pool:
        for task, message in pool.map(_tasks(plan, waiting), local=True):
            number = _HEAD.unpack_from(task)[0]
            chunks = waiting.pop(number)
            local = number in done_here
            answers = done_here.pop(number) if local else _decode_answers(message)
            if answers is None:  # raises the error of --jobs 1, at its chunk
                answers = [_answers(lanes, chunk.units, context) for chunk in chunks]
            yield from zip(chunks, answers, strict=True)


def _answered(
    lanes: Sequence[LocalLane], chunks: list[ExtractionChunk], context: RulesContext
) -> list[list[Records]] | None:
    """The answers of ``chunks`` (``None``: one raised)."""
    try:
        return [_answers(lanes, chunk.units, context) for chunk in chunks]
    except Exception:
        return None


def _tasks(plan: ChunkPlan, waiting: dict[int, list[ExtractionChunk]]) -> Iterator[bytes]:
    """The chunks of ``plan``, ``TASK_CHUNKS`` a task, numbered from 0; each task's chunks
    go into ``waiting`` under its number."""
    chunks: list[ExtractionChunk] = []
    number = 0
    for chunk in plan.chunks():
        chunks.append(chunk)
        if len(chunks) == TASK_CHUNKS:
            yield _task(number, chunks, waiting)
            chunks, number = [], number + 1
    if chunks:
        yield _task(number, chunks, waiting)


def _task(
    number: int, chunks: list[ExtractionChunk], waiting: dict[int, list[ExtractionChunk]]
) -> bytes:
    """Task ``number``: its number, then the units of ``chunks``; their units left out
    (answered in this process) when a text cannot be encoded (a lone surrogate: no
    document the import accepts holds one)."""
    waiting[number] = chunks
    try:
        return _HEAD.pack(number, True) + _encode([each.units for each in chunks])
    except (UnicodeEncodeError, TypeError, OverflowError):
        return _HEAD.pack(number, False)

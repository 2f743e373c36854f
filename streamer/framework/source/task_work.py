"""The work on one task of ``--jobs`` (``source.parallel``), in a worker process or in the
main process: its lines parsed and validated by ``JsonLinesParser``, answered with one
message (``task_messages.TaskResult``, or ``None`` when the task failed)."""

from __future__ import annotations

import itertools

from streamer.framework.source.file_lines import FileLines
from streamer.framework.source.json_lines import JsonLinesParser, ParsedBlock
from streamer.framework.source.task_messages import (
    TaskResult,
    decode_task,
    encode_ids,
    encode_result,
)
from streamer.framework.source.unit_batches import LineMarks


def find_hits(wanted: frozenset[str], ids: list[str]) -> list[tuple[int, str]]:
    """Where the IDs of ``wanted`` are among ``ids``: (offset, ID), in order (each ID
    hashed once: by the intersection, which keeps its hash for the second look)."""
    hits = wanted.intersection(ids)
    if not hits:
        return []
    offsets = itertools.compress(itertools.count(), map(hits.__contains__, ids))
    return [(offset, ids[offset]) for offset in offsets]


def _result(
    batches: list[ParsedBlock],
    lines: int,
    blank: int,
    wanted: frozenset[str] | None,
    marks: LineMarks,
) -> TaskResult:
    """What a task parsed to: the canonical lines of its units (what the semantic digest
    hashes), their unit IDs and, when the reader was given the unit IDs its consumer
    looks for (``wanted``: the projector's referenced IDs), where those are; where any
    line the marks leave out starts is found by the main process from the mark before
    it, only where it publishes (``CanonicalUnits``)."""
    ids = list(itertools.chain.from_iterable(batch[2] for batch in batches))
    hits = None if wanted is None else find_hits(wanted, ids)
    canonical = memoryview(b"".join(batch[1] for batch in batches))
    mark_lines, mark_offsets = marks.lines.tolist(), marks.offsets.tolist()
    return TaskResult(
        lines, blank, len(ids), encode_ids(ids), hits, mark_lines, mark_offsets, canonical
    )


def parse_lines(
    block: bytes | bytearray, wanted: frozenset[str] | None, part_size: int, size: int = -1
) -> list[bytearray]:
    """The work on a task of lines (a task written to a worker is its lines): the first
    ``size`` bytes of ``block`` (-1: all of it), parsed and validated in parts of about
    ``part_size`` bytes of whole lines (what the caches hold best; where it is cut
    changes nothing but the place of an error, and a task that fails is parsed again by
    the main process), answered with one message."""
    try:
        marks = LineMarks()
        parser = JsonLinesParser(first_line=1, marks=marks)
        batches: list[ParsedBlock] = []
        start, size = 0, len(block) if size < 0 else size
        view = memoryview(block)  # parts are views: no copy
        while start < size:
            end = block.find(b"\n", start + part_size - 1, size)
            end = size if end < 0 else end + 1
            batches += parser.parse(view[start:end])
            start = end
        result = _result(batches, parser.next_line - 1, parser.blank, wanted, marks)
    except Exception:  # parsed again by the main process, which raises in its place
        return [encode_result(None)]
    return [encode_result(result)]


def parse_range(
    data: bytearray, source: FileLines, wanted: frozenset[str] | None, part_size: int
) -> list[bytearray]:
    """The work on a task of a file (``FileTask``): the lines that start in the task's
    range, read from the file."""
    try:
        task = decode_task(data)
        lines, size = source.lines(task.start, task.end, task.last)
    except Exception:  # read again by the main process, which raises in its place
        return [encode_result(None)]
    return parse_lines(lines, wanted, part_size, size)

"""An import on several processes (``--jobs N``): the runs of a transcript's items
converted by N processes, written in order, the bytes of one process.

The format's reader cuts its items into runs in the main process, without decoding them
(``crd3``: ``json_items.array_run_texts``), and gives ``write_runs`` the runs' bytes and
the work on one run (``convert``): decode it, build its units as the reader does, check
and encode them (``document.encode_batch``). Each run goes to one of N - 1 worker
processes or is converted by the main process itself (``OrderedPool.map`` with
``local``: N cores busy), and the main process takes the results back in the order of the
runs: it checks that each run's items come after the last one's (``first`` greater than
the ``last`` before it: CRD3's turn numbers), adds the canonical lines to the semantic
digest and writes the published lines (``document.write_encoded_document``).

One answer, that of one process. A run that ``convert`` refuses (any exception: it does
not decode, an item is at fault, a unit breaks the contract, or the cut fell inside an
item), items out of order, or any ``SourceError`` of the reading: ``write_runs`` gives
up and returns ``None``; the caller then imports the transcript again as ``--jobs 1``
does (into the same file, emptied), which writes the same bytes or raises the error of
``--jobs 1``, with its wording, its location and its exit status. Only input the reader's
fast path would not read pays for the second reading; the errors of the output (a full
disk), of a worker (``WorkerError``) and Ctrl-C are raised as they come, the workers
ended with the pool.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from typing import IO

from streamer.framework.errors.types import SourceError
from streamer.framework.processes.ordered_pool import OrderedPool, Part
from streamer.importers.document import Encoded, write_encoded_document

# a converted run: its units' count, its first and last items' keys, its lines' size; a
# run refused: a count of -1
_HEADER = struct.Struct("<qqqq")
_REFUSED = _HEADER.pack(-1, 0, 0, 0)

Converted = tuple[Encoded, int, int]
"""A run converted: its units checked and encoded, its first and last items' keys."""
Convert = Callable[[bytearray], Converted]


class _GiveUp(Exception):
    """The runs cannot be written as one process would write them: read them again."""


def converted_parts(convert: Convert, run: bytearray) -> list[Part]:
    """The work on one run (in a worker or in the main process), as the parts of one
    message: a header, the published lines and the canonical lines; refused (any
    exception ``convert`` raises): a header alone."""
    try:
        (lines, canonical, count), first, last = convert(run)
    except Exception:
        return [_REFUSED]
    return [_HEADER.pack(count, first, last, len(lines)), lines, canonical]


def _batches(results: Iterable[tuple[bytes, bytearray]]) -> Iterator[Encoded]:
    """The encoded units of the results, in order, while their keys increase."""
    previous = -1
    for _, message in results:
        count, first, last, size = _HEADER.unpack_from(message)
        if count < 0 or first <= previous:
            raise _GiveUp
        previous = last
        view = memoryview(message)
        start = _HEADER.size
        yield view[start : start + size], view[start + size :], count


def write_runs(
    document_id: str,
    runs: Iterable[bytes],
    convert: Convert,
    jobs: int,
    out: IO[bytes],
) -> tuple[str, int] | None:
    """``write_document`` into ``out`` of the units of ``runs`` (each converted by
    ``convert``) by this process and ``jobs - 1`` workers: the semantic digest and the
    unit count; ``None`` when one process would read them otherwise (``out`` then holds
    part of a document: the caller empties it and reads again)."""

    def work(run: bytearray) -> list[Part]:
        return converted_parts(convert, run)

    try:
        with OrderedPool(jobs - 1, work) as pool:
            results = pool.map(runs, local=True)
            return write_encoded_document(document_id, _batches(results), out)
    except (_GiveUp, SourceError):
        return None

"""Extraction chunks as JSON Lines: what an extractor reads, one chunk a line.

Each line is one compact object, members in this order:

``{"chunk_id": "chunk-000001", "start_unit_id": "u000001", "end_unit_id": "u000010",
"units": [{"unit_id": "u000001", "speaker": "MATT", "text": "..."}, ...]}``

``speaker`` is present when the unit has one. The chunks are exactly those of
``streamer.framework.chunking.chunker.Chunker`` (IDs from ``chunk_id``), the same cut the bundle's
chunk map records, so an extractor citing unit IDs from a chunk cites the source document.
The lines are written to a spool while the source document is read and validated; the
caller publishes them only once the document (and its digest) has been accepted.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson
from msgspec import UNSET

from streamer.framework.chunking.chunker import Chunk, Chunker
from streamer.framework.source.source_unit import SourceUnit

SPOOL_IN_MEMORY = 4 << 20


def chunk_unit(unit: SourceUnit) -> dict[str, Any]:
    """The part of a validated source unit that a chunk carries."""
    out: dict[str, Any] = {"unit_id": unit.unit_id}
    metadata = unit.metadata
    if metadata is not UNSET and metadata.speaker is not UNSET:
        out["speaker"] = metadata.speaker
    out["text"] = unit.text
    return out


def chunk_line(chunk: Chunk[dict[str, Any]]) -> bytes:
    items = chunk.items
    return orjson.dumps(
        {
            "chunk_id": chunk.chunk_id,
            "start_unit_id": items[0]["unit_id"],
            "end_unit_id": items[-1]["unit_id"],
            "units": list(items),
        }
    )


class SpooledChunks:
    """Chunk lines waiting in a spool; ``close()`` it."""

    def __init__(self, chunk_count: int, spool: IO[bytes]) -> None:
        self.chunk_count = chunk_count
        self._spool = spool

    def write_to(self, out: IO[bytes]) -> None:
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out)

    def lines(self) -> Iterator[bytes]:
        """The chunk lines, from the first (each ends with a newline)."""
        self._spool.seek(0)
        yield from self._spool

    def close(self) -> None:
        self._spool.close()


def spool_chunks(units: Iterable[SourceUnit], max_units: int, overlap_units: int) -> SpooledChunks:
    """Cut ``units`` (validated, in document order) into chunks and spool their lines."""
    chunker: Chunker[dict[str, Any]] = Chunker(max_units, overlap_units)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    count = 0
    try:
        for unit in units:
            for chunk in chunker.add(chunk_unit(unit)):
                spool.write(chunk_line(chunk) + b"\n")
                count += 1
        for chunk in chunker.finish():
            spool.write(chunk_line(chunk) + b"\n")
            count += 1
    except BaseException:
        spool.close()
        raise
    return SpooledChunks(count, spool)

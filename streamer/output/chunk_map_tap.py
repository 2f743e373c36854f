"""The bounds of the extraction chunks, collected while the source document streams by.

``ChunkBoundsTap.tap(batches)`` passes batches of validated units through unchanged and
feeds their unit IDs to the streaming ``Chunker`` (the same chunking as ``streamer
chunk``), keeping only each chunk's bounds: the chunk map is computed in the pass that
reads the document for everything else, and holds no transcript text.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from streamer.framework.chunking.chunker import Chunk, Chunker
from streamer.framework.source.units import Batch

SPOOL_IN_MEMORY = 1 << 20


@dataclass(frozen=True)
class ChunkBounds:
    """One chunk of the chunk map: its ID, first and last unit IDs and its size."""

    chunk_id: str
    start_unit_id: str
    end_unit_id: str
    unit_count: int

    def to_json(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "start_unit_id": self.start_unit_id,
            "end_unit_id": self.end_unit_id,
            "unit_count": self.unit_count,
        }


def _bounds(chunk: Chunk[str]) -> ChunkBounds:
    items = chunk.items
    return ChunkBounds(chunk.chunk_id, items[0], items[-1], len(items))


class ChunkBoundsTap:
    """Collects the chunk bounds of the batches that ``tap`` passes through.

    The bounds are kept as the compact JSON of the chunk map's ``chunks`` entries, in a
    spool (in memory up to 1 MiB, then a temporary file): a chunk map has one entry per
    ``max_units - overlap_units`` units, too many to hold as objects for a multi-GB
    transcript. ``copy_chunks(out)`` writes them, comma-separated; ``close()`` the tap.
    """

    def __init__(self, max_units: int, overlap_units: int) -> None:
        self.max_units = max_units
        self.overlap_units = overlap_units
        self.count = 0
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        self._chunker: Chunker[str] = Chunker(max_units, overlap_units)

    def tap(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        """Yield ``batches`` unchanged; once they are exhausted, every chunk is spooled."""
        add_many = self._chunker.add_many
        for batch in batches:
            self._spool_chunks(add_many(batch.ids))
            yield batch
        self._spool_chunks(self._chunker.finish())

    def _spool_chunks(self, chunks: Iterable[Chunk[str]]) -> None:
        for chunk in chunks:
            entry = orjson.dumps(_bounds(chunk).to_json())
            self._spool.write(b"," + entry if self.count else entry)
            self.count += 1

    def copy_chunks(self, out: IO[bytes]) -> None:
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out, 1 << 20)

    def close(self) -> None:
        self._spool.close()

"""The bounds of the extraction chunks, collected while the source document streams by.

``ChunkBoundsTap.tap(batches)`` passes batches of validated units through unchanged and
finds the bounds of the chunks ``streamer chunk`` cuts (the framework's ``Chunker``: chunk
``k`` holds the positions ``k * step`` to ``k * step + max_units - 1``, the last one to the
end), keeping only each chunk's bounds: the chunk map is computed in the pass that reads
the document for everything else, and holds no transcript text. Only the unit IDs at the
chunks' ends are read from a batch (``batch.ids[i]``: with ``--jobs``, the others are never
decoded), never the batch's list of IDs.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

import orjson

from streamer.framework.chunking.chunker import Chunker, chunk_id
from streamer.framework.source.unit_batches import Batch

SPOOL_IN_MEMORY = 1 << 20


class ChunkBoundsTap:
    """Collects the chunk bounds of the batches that ``tap`` passes through.

    The bounds are kept as the compact JSON of the chunk map's ``chunks`` entries, in a
    spool (in memory up to 1 MiB, then a temporary file): a chunk map has one entry per
    ``max_units - overlap_units`` units, too many to hold as objects for a multi-GB
    transcript. ``copy_chunks(out)`` writes them, comma-separated; ``close()`` the tap.
    Memory holds the first unit IDs of the chunks not yet closed (at most
    ``max_units / (max_units - overlap_units) + 1``).
    """

    def __init__(self, max_units: int, overlap_units: int) -> None:
        Chunker(max_units, overlap_units)  # the same checks of the settings
        self.max_units = max_units
        self.overlap_units = overlap_units
        self.count = 0  # chunks made
        self._step = max_units - overlap_units
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        self._units = 0  # units seen
        self._starts: dict[int, str] = {}  # chunk index -> its first unit ID (not closed)
        self._last_id = ""  # the last unit ID seen

    def tap(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        """Yield ``batches`` unchanged; once they are exhausted, every chunk is spooled."""
        for batch in batches:
            self._read(batch.ids)
            yield batch
        self._finish()

    def _read(self, ids: Sequence[str]) -> None:
        """Note the chunks that start in a batch of ``ids`` and spool those it closes."""
        count = len(ids)
        if not count:
            return
        base, end = self._units, self._units + count
        step, size, starts = self._step, self.max_units, self._starts
        first = max(self.count, -(-base // step))  # the first chunk starting in the batch
        for index in range(first, -(-end // step)):
            starts[index] = ids[index * step - base]
        closed = []
        while (last := self.count * step + size - 1) < end:
            closed.append((self.count, starts.pop(self.count), ids[last - base], size))
            self.count += 1
        self._units = end
        self._last_id = ids[-1]
        if closed:
            self._spool_chunks(closed)

    def _finish(self) -> None:
        """Spool the last, shorter chunk when units remain that no chunk holds yet."""
        step = self._step
        last_end = (self.count - 1) * step + self.max_units - 1 if self.count else -1
        if self._units - 1 > last_end:
            start = self.count * step
            last = (self.count, self._starts.pop(self.count), self._last_id, self._units - start)
            self.count += 1
            self._spool_chunks([last])

    def _spool_chunks(self, chunks: list[tuple[int, str, str, int]]) -> None:
        entries = orjson.dumps(
            [
                {
                    "chunk_id": chunk_id(index),
                    "start_unit_id": start,
                    "end_unit_id": end,
                    "unit_count": count,
                }
                for index, start, end, count in chunks
            ]
        )
        written = self.count - len(chunks)  # before these
        self._spool.write((b"," if written else b"") + entries[1:-1])

    def copy_chunks(self, out: IO[bytes]) -> None:
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out, 1 << 20)

    def close(self) -> None:
        self._spool.close()

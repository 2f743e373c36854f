"""Finding unit IDs that appear twice in the evidence document, in bounded memory.

Each unit ID is remembered by its 8-byte hash, in sorted runs of at most ``RUN`` hashes;
a full run goes to a temporary file (``TMPDIR``), so memory stays flat however many units
the document has (the merge reads each run a block at a time: 32 KiB a run). At the end
the runs are merged: only hashes that repeat can belong to repeated IDs (two IDs may share
a hash: the caller confirms on the IDs, in a second pass).
"""

from __future__ import annotations

import array
import heapq
import itertools
import operator
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO

RUN = 1 << 18  # hashes per run: 2 MiB (sorting one briefly takes about 10 MiB)
_READ = 1 << 12  # hashes read from a run at a time, during the merge: 32 KiB


class IdHashes:
    def __init__(self, run: int | None = None) -> None:
        self._run = RUN if run is None else run
        self._hashes = array.array("q")
        self._spill: IO[bytes] | None = None
        self._runs: list[tuple[int, int]] = []  # (offset in the spill, length)

    def add(self, unit_ids: Iterable[str]) -> None:
        self._hashes.extend(map(hash, unit_ids))
        if len(self._hashes) >= self._run:
            self._flush()

    def _flush(self) -> None:
        ordered = array.array("q", sorted(self._hashes))
        if self._spill is None:
            self._spill = tempfile.TemporaryFile()  # noqa: SIM115 - closed in repeated()
        self._runs.append((self._spill.tell(), len(ordered)))
        ordered.tofile(self._spill)
        self._hashes = array.array("q")

    def _read_run(self, offset: int, length: int) -> Iterator[int]:
        spill = self._spill
        assert spill is not None
        done = 0
        while done < length:
            block = array.array("q")
            spill.seek(offset + done * block.itemsize)
            block.fromfile(spill, min(_READ, length - done))
            done += len(block)
            yield from block

    def repeated(self) -> set[int]:
        """The hashes seen more than once."""
        if self._spill is None:
            ordered = sorted(self._hashes)
            self._hashes = array.array("q")
            if not any(map(operator.eq, ordered, itertools.islice(ordered, 1, None))):
                return set()  # the common case, decided in C
            merged: Iterator[int] = iter(ordered)
        else:
            if self._hashes:
                self._flush()
            merged = heapq.merge(*(self._read_run(*run) for run in self._runs))
        try:
            return {a for a, b in itertools.pairwise(merged) if a == b}
        finally:
            if self._spill is not None:
                self._spill.close()
            self._hashes = array.array("q")

"""The evidence spool: every covered unit serialized once, in order, grouped into the
contexts as they close (``SpoolWriter``); in memory up to ``SPOOL_IN_MEMORY``, then a
temporary file in ``TMPDIR``. When it cannot grow, ``SpoolFullError`` names the reference
still open. The published unit IDs are checked for duplicates by their 8-byte hashes.
"""

from __future__ import annotations

import array
import itertools
import tempfile
from dataclasses import dataclass, field
from typing import IO

import msgspec

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import SourceError, StreamerError
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import published_units, unit_ids

from .coverage import Coverage

SPOOL_IN_MEMORY = 1 << 20


class _PublishedId(msgspec.Struct):
    unit_id: str


_ids_decoder = msgspec.json.Decoder(list[_PublishedId])


@dataclass
class Context:
    """One merged, expanded range of the evidence document."""

    start_position: int
    end_position: int
    start_unit_id: str
    end_unit_id: str
    spool_start: int
    spool_end: int
    references: list[tuple[SourceReference, tuple[str, ...]]] = field(default_factory=list)


def open_spool() -> IO[bytes]:
    """The evidence spool: in memory up to ``SPOOL_IN_MEMORY``, then a file in TMPDIR."""
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)


class SpoolWriter:
    """Serializes covered units into the spool, grouping them into contexts."""

    def __init__(self, spool: IO[bytes]) -> None:
        self.spool = spool
        self.size = 0
        self.contexts: list[Context] = []
        self.run: Context | None = None
        # The hash of every published unit ID, 8 bytes each: far smaller than the IDs.
        self.hashes = array.array("q")

    def emit(self, coverage: Coverage, last: int) -> None:
        """Decide the undecided units (``coverage.pending``) up to position ``last``."""
        if last < coverage.decided:
            return
        for low, high in coverage.covered(last):
            if self.run is not None and low > self.run.end_position + 1:
                self._close()
            self._write(low, coverage.units(low, high))
        if self.run is not None and self.run.end_position < last:
            self._close()
        coverage.decided = last + 1
        coverage.release()

    def _write(self, position: int, segment: list[SourceUnit]) -> None:
        """Publish the contiguous ``segment`` of covered units starting at ``position``."""
        ids = unit_ids(segment)
        self.hashes.extend(map(hash, ids))
        data = published_units(segment)
        run = self.run
        if run is None:
            run = self.run = Context(position, position, ids[0], ids[0], self.size, self.size)
        else:
            data = b"," + data
        run.end_position = position + len(segment) - 1
        run.end_unit_id = ids[-1]
        try:
            self.spool.write(data)
        except OSError as error:  # TMPDIR is full (or over a quota, or a file size limit)
            raise SpoolFull(self.size, error.strerror or type(error).__name__) from None
        self.size += len(data)
        run.spool_end = self.size

    def _close(self) -> None:
        if self.run is not None:
            self.contexts.append(self.run)
            self.run = None

    def finish(self) -> list[Context]:
        self._close()
        self._check_unique()
        return self.contexts

    def _check_unique(self) -> None:
        """Fail when a unit ID appears twice among the published units.

        Equal IDs have equal hashes, so only IDs whose hash repeats can be duplicates: in
        the rare case that any does, the spooled units are read back to compare the IDs
        themselves (two different IDs may share a hash; that is not an error).
        """
        ordered = sorted(self.hashes)
        repeated = {a for a, b in itertools.pairwise(ordered) if a == b}
        del ordered
        if not repeated:
            return
        seen: set[str] = set()
        for context in self.contexts:
            self.spool.seek(context.spool_start)
            listed = b"[" + self.spool.read(context.spool_end - context.spool_start) + b"]"
            for unit_id in (unit.unit_id for unit in _ids_decoder.decode(listed)):
                if hash(unit_id) in repeated:
                    if unit_id in seen:
                        raise SourceError(
                            f"unit ID {quoted(unit_id)} appears twice among the published units",
                            hint="unit IDs must be unique in a source document",
                        )
                    seen.add(unit_id)


class SpoolFull(Exception):
    """A write to the spool failed (``spool_error`` makes it a ``SpoolFullError``)."""

    def __init__(self, size: int, reason: str) -> None:
        super().__init__(reason)
        self.size = size
        self.reason = reason


class SpoolFullError(StreamerError):
    """The evidence spool could not grow (exit status 1: the machine, not the input)."""


def spool_error(full: SpoolFull, coverage: Coverage) -> SpoolFullError:
    """A clear error when the spool cannot grow, naming the reference that keeps it growing
    when one is still open (its start seen, its end unit not yet)."""
    message = f"the evidence spool in TMPDIR cannot grow past {full.size:,} bytes ({full.reason})"
    if coverage.open:
        index = min(coverage.open, key=coverage.open.__getitem__)
        message += (
            f"; {len(coverage.open)} reference(s) still open since source position "
            f"{coverage.open[index]}, the first {coverage.references.first[index].where()}: "
            "its end unit has not appeared, and every unit after its start is kept"
        )
    return SpoolFullError(
        message,
        hint="the spool holds every published unit until the source has been read; free "
        "space in TMPDIR or point TMPDIR at a larger disk (see docs/operations.md)",
    )

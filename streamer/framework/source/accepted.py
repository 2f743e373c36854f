"""A source document read again by the run that accepted it: no validation, no digest.

``streamer run`` imports a transcript into its work folder: the import reads every unit,
checks it against the contract, digests it and writes the document (JSON Lines: the
header line, then one unit a line, in published member order). The run then knows the
document's identity and the digest of the file's bytes, and checks that digest before
each stage that reads the file. The stages after the import read the same file again;
since its bytes are the ones accepted, they need not validate the units nor verify the
semantic digest again. ``AcceptedSource`` reads such a document in blocks of whole lines
(``blocks``), or as the batches of ``SourceDocumentReader`` (``batches``: the unit IDs of
each batch, and its units decoded only when a stage takes them). What would show that the
file is not the one accepted (another header, another count of units) is a ``SourceError``,
never a silently different result.
"""

from __future__ import annotations

import array
import bisect
import os
import tempfile
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import overload

import msgspec
import orjson

from streamer.framework.errors.types import SourceError
from streamer.framework.source.envelope import DocumentIdentity
from streamer.framework.source.json_lines import line_blocks
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import Batch, Hits

# 128 KiB: as the reader's blocks (``source.reader.DEFAULT_BUFFER_SIZE``)
BLOCK_SIZE = 1 << 17

# (bytes read so far, the file's size)
Progress = Callable[[int, "int | None"], None]


class _Id(msgspec.Struct):
    unit_id: str


_ids_decoder = msgspec.json.Decoder(_Id)
_ids_encoder = msgspec.msgpack.Encoder()
_ids_decoder_msgpack = msgspec.msgpack.Decoder(list[str])
SPOOL_IN_MEMORY = 4 << 20
_units_decoder = msgspec.json.Decoder(list[SourceUnit])
_unit_decoder = msgspec.json.Decoder(SourceUnit)


class LineUnits(Sequence[SourceUnit]):
    """The units of a block of unit lines, decoded when a slice of them is taken (most
    blocks are never sliced: a stage takes only the units it cites or publishes)."""

    def __init__(self, block: bytes | memoryview | Callable[[], bytes], count: int) -> None:
        self._block = block  # or what reads it, when first needed
        self._count = count
        self._lines: list[bytes] | None = None

    def __len__(self) -> int:
        return self._count

    def _split(self) -> list[bytes]:
        if self._lines is None:
            block = self._block() if callable(self._block) else self._block
            lines = bytes(block).split(b"\n")
            if not lines[-1]:  # after the last newline
                lines.pop()
            if len(lines) != self._count:  # a blank line: not as the import writes it
                raise SourceError(
                    "the source document changed while it was read (a blank line)",
                    hint="do not change the work folder while a run uses it; run again",
                )
            self._lines = lines
        return self._lines

    @overload
    def __getitem__(self, index: int) -> SourceUnit: ...

    @overload
    def __getitem__(self, index: slice) -> list[SourceUnit]: ...

    def __getitem__(self, index: int | slice) -> SourceUnit | list[SourceUnit]:
        lines = self._split()
        if isinstance(index, slice):
            taken = lines[index]
            if not taken:
                return []
            return _units_decoder.decode(b"[" + b",".join(taken) + b"]")
        return _unit_decoder.decode(lines[index])


class AcceptedSource:
    """The source document at ``path``, which this run accepted with ``identity``."""

    def __init__(
        self, path: Path, identity: DocumentIdentity, index: UnitIndex | None = None
    ) -> None:
        self.path = path
        self.identity = identity
        self.index = index
        """Where its blocks lie and their unit IDs, once a stage has read every line and
        written them (``UnitIndex``): then read instead of the lines."""

    def _changed(self, what: str) -> SourceError:
        return SourceError(
            f"the source document changed while it was read ({what})",
            hint="do not change the work folder while a run uses it; run again",
        )

    def blocks(
        self, block_size: int = BLOCK_SIZE, progress: Progress | None = None
    ) -> Generator[tuple[int, bytes | memoryview], None, None]:
        """The unit lines, in blocks of whole lines (each ends with a newline, but perhaps
        the document's last), each with the offset in the file where it starts."""
        with open(self.path, "rb", buffering=0) as raw:
            size = self.path.stat().st_size if progress is not None else None
            done = 0
            header = True
            for block in line_blocks(raw, block_size):
                offset = done
                done += len(block)
                if header:
                    header = False
                    end = bytes(block).find(b"\n") + 1 or len(block)
                    self._check_header(bytes(block[:end]))
                    block = block[end:]
                    offset += end
                if progress is not None:
                    progress(done, size)
                if len(block):
                    yield offset, block
            if header:
                raise self._changed("it is empty")

    def _check_header(self, line: bytes) -> None:
        try:
            head = orjson.loads(line)
        except orjson.JSONDecodeError:
            head = None
        identity = self.identity
        expected = {
            "document_id": identity.document_id,
            "semantic_digest": identity.semantic_digest,
        }
        if head != expected:
            raise self._changed("another header")

    def batches(
        self,
        block_size: int = BLOCK_SIZE,
        progress: Progress | None = None,
        wanted: frozenset[str] | None = None,
    ) -> Generator[Batch, None, None]:
        """The units in document order, a block of lines at a time: the unit IDs decoded
        (from the ``index`` when it is complete), the units when taken (``LineUnits``); the
        count of units is checked at the end. ``wanted``: unit IDs the consumer looks for;
        when the index knows the position of every one (``UnitIndex.positions``), each
        batch says where they are (``Batch.hits``), and no ID is looked up."""
        count = 0
        if self.index is not None and self.index.complete:
            size = self.path.stat().st_size
            known = self.index.positions
            hits = None
            if wanted is not None and wanted.issubset(known):
                hits = iter(sorted((known[unit_id], unit_id) for unit_id in wanted))
            following = next(hits, None) if hits is not None else None
            for offset, length, ids in self.index.blocks():
                base = count
                count += len(ids)
                if progress is not None:
                    progress(offset + length, size)
                units = LineUnits(self._reader(offset, length), len(ids))
                if hits is None:
                    yield Batch(units, ids)
                    continue
                assert wanted is not None
                found = []
                while following is not None and following[0] < count:
                    at = following[0] - base
                    if ids[at] != following[1]:
                        raise self._changed("a unit ID is not where this run found it")
                    found.append((at, following[1]))
                    following = next(hits, None)
                yield Batch(units, ids, Hits(wanted, found))
            if following is not None:
                raise self._changed("a unit ID is not where this run found it")
        else:
            for _, block in self.blocks(block_size, progress):
                ids = [unit.unit_id for unit in _ids_decoder.decode_lines(block)]
                count += len(ids)
                yield Batch(LineUnits(block, len(ids)), ids)
        self.check_count(count)

    def _reader(self, offset: int, length: int) -> Callable[[], bytes]:
        def read() -> bytes:
            with open(self.path, "rb", buffering=0) as raw:
                block = os.pread(raw.fileno(), length, offset)
            if len(block) != length:
                raise self._changed("it is shorter")
            return block

        return read

    def check_count(self, count: int) -> None:
        """Fail unless ``count``, the units read to the end, is the accepted count."""
        if count != self.identity.unit_count:
            raise self._changed("another count of units")


class UnitIndex:
    """Where each block of unit lines of an accepted document starts, its length and its
    unit IDs, written by the stage that reads every line first (``add`` each block in
    order, then ``finish``), so that the stages after it read the IDs instead of parsing
    the lines, or only the blocks that hold the positions they ask for (``UnitsByPosition``).
    The IDs wait in a spool (in memory up to 4 MiB, then a temporary file); ``close()`` it."""

    def __init__(self) -> None:
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        # a block each: its offset, length, first position, and where its IDs lie in the
        # spool and their size
        self._blocks = array.array("Q")
        self._firsts: list[int] = []  # the first position of each block (for ``bisect``)
        self._written = 0
        self.unit_count = 0
        self.complete = False
        self.positions: dict[str, int] = {}
        """Document positions of unit IDs that a stage of this run has found (normalize:
        those its candidates cite), for the stages after it (``AcceptedSource.batches``
        gives them as ``Hits``)."""

    @property
    def empty(self) -> bool:
        """Whether no block was added (a pass abandoned half way leaves it neither empty
        nor complete: it is never read)."""
        return not self._blocks

    def add(self, offset: int, length: int, ids: list[str]) -> None:
        if self.complete:
            raise RuntimeError("this UnitIndex is complete")
        data = _ids_encoder.encode(ids)
        self._spool.seek(self._written)
        self._spool.write(data)
        self._blocks.extend((offset, length, self.unit_count, self._written, len(data)))
        self._firsts.append(self.unit_count)
        self._written += len(data)
        self.unit_count += len(ids)

    def finish(self) -> None:
        """Every block was added: the index may be read."""
        self.complete = True

    def __len__(self) -> int:
        """The number of blocks."""
        return len(self._firsts)

    def block(self, number: int) -> tuple[int, int, int, list[str]]:
        """(offset, length, first position, unit IDs) of block ``number``."""
        at = number * 5
        offset, length, first, spooled, size = self._blocks[at : at + 5]
        self._spool.seek(spooled)
        return offset, length, first, _ids_decoder_msgpack.decode(self._spool.read(size))

    def block_at(self, position: int) -> int:
        """The number of the block that holds document position ``position``."""
        if not 0 <= position < self.unit_count:
            raise IndexError(position)
        return bisect.bisect_right(self._firsts, position) - 1

    def blocks(self) -> Iterator[tuple[int, int, list[str]]]:
        """(offset, length, unit IDs) of each block, in document order."""
        for number in range(len(self)):
            offset, length, _, ids = self.block(number)
            yield offset, length, ids

    def close(self) -> None:
        self._spool.close()


class UnitsByPosition:
    """The unit IDs and units of an accepted document by document position, read through
    its complete index: only the blocks that hold the positions asked for are read, by
    offset (their IDs from the index, their lines from the file), the last few kept. For
    a stage of ``streamer run`` that needs a few units of a large document (those its
    candidates cite) rather than a pass over every line."""

    KEPT = 2  # blocks kept: a chunk or a cited range may straddle two

    def __init__(self, source: AcceptedSource) -> None:
        index = source.index
        if index is None or not index.complete:
            raise ValueError("UnitsByPosition needs an accepted source with a complete index")
        source.check_count(index.unit_count)
        self.source = source
        self.index = index
        self.unit_count = index.unit_count
        self._kept: dict[int, tuple[int, list[str], LineUnits]] = {}

    def _block(self, number: int) -> tuple[int, list[str], LineUnits]:
        kept = self._kept
        found = kept.pop(number, None)
        if found is None:
            offset, length, first, ids = self.index.block(number)
            found = (first, ids, LineUnits(self.source._reader(offset, length), len(ids)))
            if len(kept) >= self.KEPT:
                del kept[next(iter(kept))]
        kept[number] = found  # the most recent last
        return found

    def _spans(self, start: int, stop: int) -> Iterator[tuple[int, int, int]]:
        """(block, from, to) of positions ``start`` to ``stop`` (excluded), block by block
        (offsets within each block)."""
        if not 0 <= start <= stop <= self.unit_count:
            raise IndexError((start, stop))
        position = start
        while position < stop:
            number = self.index.block_at(position)
            first, ids, _ = self._block(number)
            end = min(stop, first + len(ids))
            yield number, position - first, end - first
            position = end

    def ids(self, start: int, stop: int) -> list[str]:
        """The unit IDs at positions ``start`` to ``stop`` (excluded)."""
        found: list[str] = []
        for number, low, high in self._spans(start, stop):
            found += self._block(number)[1][low:high]
        return found

    def units(self, start: int, stop: int) -> list[SourceUnit]:
        """The units at positions ``start`` to ``stop`` (excluded), decoded from their
        lines."""
        found: list[SourceUnit] = []
        for number, low, high in self._spans(start, stop):
            found += self._block(number)[2][low:high]
        return found

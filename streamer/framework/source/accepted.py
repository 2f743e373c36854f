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

from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import overload

import msgspec
import orjson

from streamer.framework.errors import SourceError
from streamer.framework.source.envelope import DocumentIdentity
from streamer.framework.source.json_lines import line_blocks
from streamer.framework.source.unit import SourceUnit
from streamer.framework.source.units import Batch

# 128 KiB: as the reader's blocks (``source.reader.DEFAULT_BUFFER_SIZE``)
BLOCK_SIZE = 1 << 17

# (bytes read so far, the file's size)
Progress = Callable[[int, "int | None"], None]


class _Id(msgspec.Struct):
    unit_id: str


_ids_decoder = msgspec.json.Decoder(_Id)
_units_decoder = msgspec.json.Decoder(list[SourceUnit])
_unit_decoder = msgspec.json.Decoder(SourceUnit)


class LineUnits(Sequence[SourceUnit]):
    """The units of a block of unit lines, decoded when a slice of them is taken (most
    blocks are never sliced: a stage takes only the units it cites or publishes)."""

    def __init__(self, block: bytes | memoryview, count: int) -> None:
        self._block = block
        self._count = count
        self._lines: list[bytes] | None = None

    def __len__(self) -> int:
        return self._count

    def _split(self) -> list[bytes]:
        if self._lines is None:
            lines = bytes(self._block).split(b"\n")
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

    def __init__(self, path: Path, identity: DocumentIdentity) -> None:
        self.path = path
        self.identity = identity

    def _changed(self, what: str) -> SourceError:
        return SourceError(
            f"the source document changed while it was read ({what})",
            hint="do not change the work folder while a run uses it; run again",
        )

    def blocks(
        self, block_size: int = BLOCK_SIZE, progress: Progress | None = None
    ) -> Generator[bytes | memoryview, None, None]:
        """The unit lines, in blocks of whole lines (each ends with a newline, but perhaps
        the document's last)."""
        with open(self.path, "rb", buffering=0) as raw:
            size = self.path.stat().st_size if progress is not None else None
            done = 0
            header = True
            for block in line_blocks(raw, block_size):
                done += len(block)
                if header:
                    header = False
                    end = bytes(block).find(b"\n") + 1 or len(block)
                    self._check_header(bytes(block[:end]))
                    block = block[end:]
                if progress is not None:
                    progress(done, size)
                if len(block):
                    yield block
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
        self, block_size: int = BLOCK_SIZE, progress: Progress | None = None
    ) -> Generator[Batch, None, None]:
        """The units in document order, a block of lines at a time: the unit IDs decoded,
        the units when taken (``LineUnits``); the count of units is checked at the end."""
        count = 0
        for block in self.blocks(block_size, progress):
            ids = [unit.unit_id for unit in _ids_decoder.decode_lines(block)]
            count += len(ids)
            yield Batch(LineUnits(block, len(ids)), ids)
        self.check_count(count)

    def check_count(self, count: int) -> None:
        """Fail unless ``count``, the units read to the end, is the accepted count."""
        if count != self.identity.unit_count:
            raise self._changed("another count of units")

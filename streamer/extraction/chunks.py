"""The chunk plan of a source document, exactly as ``streamer chunk`` cuts it.

The source document is read once, validated and its digest verified, while its chunks are
spooled (``output.extraction_chunks``); only then is anything asked. The chunks are then
read back from the spool one at a time, so a run holds no more of the transcript than the
chunks in flight.

The document ``streamer run`` imported and accepted (an ``AcceptedSource``) needs neither
the check nor the spool: its chunks are cut from its unit lines each time they are
iterated (``accepted_chunk_plan``), the same chunks with the same digests.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

import msgspec

from streamer.configuration import Configuration
from streamer.framework.chunking.chunker import Chunk, Chunker
from streamer.framework.kinds.extraction_spec import ShownUnit
from streamer.framework.source.accepted import AcceptedSource
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE, SourceDocumentReader
from streamer.output.extraction_chunks import SpooledChunks, spool_chunks


# gc=False: none can hold a cycle, and a run decodes one a unit (the cyclic collector
# tracking them cost half the chunk pass)
class _Unit(msgspec.Struct, gc=False):
    unit_id: str
    text: str
    speaker: str | None = None


class _ChunkLine(msgspec.Struct):
    chunk_id: str
    units: list[_Unit]


class _Speaker(msgspec.Struct, gc=False):
    speaker: str | None = None


class _UnitLine(msgspec.Struct, gc=False):
    """What extraction shows of a unit line of a source document."""

    unit_id: str
    text: str
    metadata: _Speaker | None = None


_decode = msgspec.json.Decoder(_ChunkLine).decode
_decode_unit_lines = msgspec.json.Decoder(_UnitLine).decode_lines
_encode = msgspec.json.Encoder().encode


@dataclass(frozen=True)
class ExtractionChunk:
    """One chunk as extraction shows it; ``digest`` is the SHA-256 of its units (IDs,
    speakers and text), which keys the cache (computed when first asked: a rules lane
    never asks)."""

    chunk_id: str
    units: tuple[ShownUnit, ...]

    @functools.cached_property
    def digest(self) -> str:
        units = [_Unit(unit.unit_id, unit.text, unit.speaker) for unit in self.units]
        return hashlib.sha256(_encode(units)).hexdigest()


@dataclass(frozen=True)
class ChunkPlan:
    """The chunks of an accepted source document; iterate ``chunks()`` as often as needed."""

    document_id: str
    semantic_digest: str
    chunk_count: int
    _chunks: Callable[[], Iterator[ExtractionChunk]]

    def chunks(self) -> Iterator[ExtractionChunk]:
        return self._chunks()


def _spooled(spool: SpooledChunks) -> Iterator[ExtractionChunk]:
    for line in spool.lines():
        parsed = _decode(line)
        yield ExtractionChunk(
            parsed.chunk_id,
            tuple(ShownUnit(unit.unit_id, unit.speaker, unit.text) for unit in parsed.units),
        )


@contextlib.contextmanager
def chunk_plan(
    config: Configuration, stream: BinaryIO, buffer_size: int = DEFAULT_BUFFER_SIZE
) -> Iterator[ChunkPlan]:
    reader = SourceDocumentReader(stream, buffer_size=buffer_size)
    spool = spool_chunks(reader, config.chunking.max_units, config.chunking.overlap_units)
    try:
        identity = reader.identity
        yield ChunkPlan(
            identity.document_id,
            identity.semantic_digest,
            spool.chunk_count,
            functools.partial(_spooled, spool),
        )
    finally:
        spool.close()


def accepted_chunk_plan(config: Configuration, source: AcceptedSource) -> ChunkPlan:
    """The chunk plan of the document ``streamer run`` accepted, cut from its unit lines
    whenever it is iterated: nothing is spooled or checked again. The first pass to the
    end writes the source's ``index``, when it has one to write."""
    chunking = config.chunking
    identity = source.identity
    count = chunk_count(identity.unit_count, chunking.max_units, chunking.overlap_units)

    def chunks() -> Iterator[ExtractionChunk]:
        chunker: Chunker[ShownUnit] = Chunker(chunking.max_units, chunking.overlap_units)
        index = source.index if source.index is not None and source.index.empty else None
        read = 0
        for offset, block in source.blocks():
            units = [
                ShownUnit(
                    unit.unit_id,
                    None if unit.metadata is None else unit.metadata.speaker,
                    unit.text,
                )
                for unit in _decode_unit_lines(block)
            ]
            read += len(units)
            if index is not None:  # for the stages after extraction
                index.add(offset, len(block), [unit.unit_id for unit in units])
            yield from _shown(chunker.add_many(units))
        source.check_count(read)
        if index is not None:
            index.finish()
        yield from _shown(chunker.finish())

    return ChunkPlan(identity.document_id, identity.semantic_digest, count, chunks)


def _shown(chunks: Iterable[Chunk[ShownUnit]]) -> Iterator[ExtractionChunk]:
    for chunk in chunks:
        yield ExtractionChunk(chunk.chunk_id, chunk.items)


def chunk_count(unit_count: int, max_units: int, overlap_units: int) -> int:
    """How many chunks ``Chunker(max_units, overlap_units)`` cuts ``unit_count`` units
    into: one a ``max_units - overlap_units`` units while a chunk holds a unit its
    predecessor did not."""
    if unit_count <= 0:
        return 0
    step = max_units - overlap_units
    full = 0 if unit_count < max_units else (unit_count - max_units) // step + 1
    last_end = (full - 1) * step + max_units - 1 if full else -1
    return full + (1 if last_end < unit_count - 1 else 0)

"""The chunk plan of a source document, exactly as ``streamer chunk`` cuts it.

The source document is read once, validated and its digest verified, while its chunks are
spooled (``output.extraction_chunks``); only then is anything asked. The chunks are then
read back from the spool one at a time, so a run holds no more of the transcript than the
chunks in flight.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import msgspec

from streamer.configuration import Configuration
from streamer.framework.kinds.extraction import ShownUnit
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE, SourceDocumentReader
from streamer.output.extraction_chunks import SpooledChunks, spool_chunks


class _Unit(msgspec.Struct):
    unit_id: str
    text: str
    speaker: str | None = None


class _ChunkLine(msgspec.Struct):
    chunk_id: str
    units: list[_Unit]


_decode = msgspec.json.Decoder(_ChunkLine).decode


@dataclass(frozen=True)
class ExtractionChunk:
    """One chunk as extraction shows it; ``digest`` is the SHA-256 of its units (IDs,
    speakers and text), which keys the cache."""

    chunk_id: str
    units: tuple[ShownUnit, ...]
    digest: str


@dataclass(frozen=True)
class ChunkPlan:
    """The chunks of an accepted source document; iterate ``chunks()`` as often as needed."""

    document_id: str
    semantic_digest: str
    chunk_count: int
    _spool: SpooledChunks

    def chunks(self) -> Iterator[ExtractionChunk]:
        for line in self._spool.lines():
            parsed = _decode(line)
            units_json = msgspec.json.encode(parsed.units)
            yield ExtractionChunk(
                parsed.chunk_id,
                tuple(ShownUnit(unit.unit_id, unit.speaker, unit.text) for unit in parsed.units),
                hashlib.sha256(units_json).hexdigest(),
            )


@contextlib.contextmanager
def chunk_plan(
    config: Configuration, stream: BinaryIO, buffer_size: int = DEFAULT_BUFFER_SIZE
) -> Iterator[ChunkPlan]:
    reader = SourceDocumentReader(stream, buffer_size=buffer_size)
    spool = spool_chunks(reader, config.chunking.max_units, config.chunking.overlap_units)
    try:
        identity = reader.identity
        yield ChunkPlan(identity.document_id, identity.semantic_digest, spool.chunk_count, spool)
    finally:
        spool.close()

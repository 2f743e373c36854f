"""The incremental source document reader: JSON or JSON Lines, one pass, bounded memory.

``SourceDocumentReader(stream).batches()`` yields validated units in document order, a
batch at a time with their unit IDs (iterating the reader yields the units one by one),
and, once exhausted, the reader exposes the document's identity with the semantic digest
verified (when declared) or computed (when absent). A reader reads its document once.

The reader is the facade of four parts, one job each:

- ``source.head``: the head of the document (its form, JSON or JSON Lines, and the
  envelope members before the units), and ``source.envelope``: the envelope
  (``document_id``, ``semantic_digest``) through to the document's identity;
- ``source.json_lines``: JSON Lines, in blocks of whole lines, each parsed in one call;
- ``source.json_form``: the items of ``units`` of the JSON form, a buffer at a time
  (its quick and exact scans), and the members after ``units``;
- ``source.parallel``: with ``jobs`` > 1, the lines of JSON Lines parsed by ``jobs - 1``
  worker processes and this one (an ``OrderedPool``), to the same units, digest and
  errors; from a regular file, each reads its lines itself. (The JSON form is read in this process
  whatever ``jobs``.)

``wanted``: unit IDs the consumer looks for; with ``jobs`` > 1 the parsers find where
they are in each batch (``Batch.hits``; with one job the consumer looks them up).

Both forms refuse repeated member names; every error names a line or a JSON path, never
content.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Generator, Iterator
from typing import BinaryIO

from streamer.framework.json.canonical import SemanticDigest
from streamer.framework.source.envelope import DocumentIdentity, Envelope, SourceForm
from streamer.framework.source.head import scan_head
from streamer.framework.source.json_form import JsonUnits
from streamer.framework.source.json_lines import JsonLinesParser, ParsedBlock, line_blocks
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import Batch

__all__ = [
    "DEFAULT_BUFFER_SIZE",
    "JSON_BATCH_UNITS",
    "DocumentIdentity",
    "SourceDocumentReader",
    "SourceForm",
]

# 128 KiB: a batch's units are still in the CPU's caches when they are checked, encoded
# and indexed (1 MiB blocks measured about 20% slower)
DEFAULT_BUFFER_SIZE = 1 << 17
JSON_BATCH_UNITS = 1 << 14


class SourceDocumentReader:
    """Iterate the validated units of a source document read from a binary stream."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        buffer_size: int = DEFAULT_BUFFER_SIZE,
        batch_units: int = JSON_BATCH_UNITS,
        jobs: int = 1,
        wanted: frozenset[str] | None = None,
    ) -> None:
        self._buffer_size = max(buffer_size, 1)
        self._batch_units = max(batch_units, 1)
        self._jobs = jobs
        self._wanted = wanted
        self._start = _file_position(stream) if jobs > 1 else None
        self._origin = stream
        self._envelope = Envelope()
        self._identity: DocumentIdentity | None = None
        self._read = False
        self.form: SourceForm
        self.form, self._stream = scan_head(stream, self._buffer_size, self._envelope)

    def __iter__(self) -> Iterator[SourceUnit]:
        for batch in self.batches():
            yield from batch.units

    def batches(self) -> Generator[Batch, None, None]:
        """The validated units in document order, a batch at a time.

        Parsing, validation and digesting work on whole batches, which is what keeps the
        per-unit cost of a multi-gigabyte pass close to the parser's own.
        """
        if self._read:
            raise RuntimeError(
                "this SourceDocumentReader has already read its document: "
                "a reader reads its document once (open a new one)"
            )
        self._read = True
        return self._batches()

    def _batches(self) -> Generator[Batch, None, None]:
        digest = SemanticDigest()
        wanted = self._wanted
        if self._jobs > 1 and self.form == "jsonl":  # parsed by workers
            from streamer.framework.source import parallel
            from streamer.framework.source.file_lines import FileLines

            if self._start is not None:  # a regular file: the workers read it
                descriptor, start = self._start
                raw = self._stream.raw
                source = FileLines(descriptor, start + raw.head_size, raw.prefix_size)
                source.reached = getattr(self._origin, "reached", None)  # progress
                read = parallel.file_batches(source, digest, self._jobs, self._buffer_size, wanted)
            else:
                blocks = line_blocks(self._stream.raw, self._buffer_size)
                read = parallel.parallel_batches(blocks, digest, self._jobs, wanted)
            count = yield from read
        else:
            count = 0
            for units, lines, ids in self._parsed():
                digest.add_canonical_lines(lines)
                count += len(units)
                yield Batch(units, ids)  # the consumer looks its IDs up itself
        self._identity = self._envelope.identity(self.form, digest, count)

    def _parsed(self) -> Iterator[ParsedBlock]:
        if self.form == "json":
            json_units = JsonUnits(
                self._stream, self._buffer_size, self._batch_units, self._envelope
            )
            yield from json_units.batches()
            return
        parser = JsonLinesParser(first_line=2)
        for block in line_blocks(self._stream.raw, self._buffer_size):
            yield from parser.parse(block)

    @property
    def identity(self) -> DocumentIdentity:
        if self._identity is None:
            raise RuntimeError("the source document has not been read to its end")
        return self._identity


def _file_position(stream: BinaryIO) -> tuple[int, int] | None:
    """The descriptor of ``stream`` and its position, when it reads a regular file from
    its descriptor's position (``None``: a pipe, a terminal, a stream of another kind)."""
    try:
        descriptor = stream.fileno()
        if not stat.S_ISREG(os.fstat(descriptor).st_mode) or not stream.seekable():
            return None
        position = stream.tell()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return descriptor, position

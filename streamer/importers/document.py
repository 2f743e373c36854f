"""The shared writer: imported source units in, a source document as JSON Lines out.

Every importer builds each unit once, as the ``SourceUnit`` struct of the contract
(``unit_id, kind, text, metadata``; metadata members ``speaker, start_ms, end_ms``,
omitted when the unit has none; ``utterance`` builds one), and yields them in transcript
order. ``spool_document`` and ``write_document`` work on batches of them: a batch is encoded by
msgspec as the published JSON lines, which are decoded again against ``SourceUnit`` (the
contract's types, non-empty strings, integer ranges, checked in C: the reader's own check)
with ``start_ms <= end_ms`` checked over the batch, then written; its canonical JSON
lines are added to the semantic digest in one call. A batch that breaks the contract is
validated unit by unit by ``validate_unit``, which raises the located, content-safe error
(naming the unit by its position). The importers check what they read before they build a
unit, with errors located in their input, so that is a guard against a defect of an
importer, not a check of the transcript. The header line needs the digest, which is known
only at the end: ``write_document`` writes the lines straight into a seekable file (the
temporary file that replaces the output atomically) after a header of the same length and
writes the header last; ``spool_document`` writes them to a temporary spool, and the
caller writes the header and then the spool (``SpooledDocument.write_to``: a stream).
Either way nothing is published until the whole transcript has been read and accepted,
and memory stays bounded whatever the transcript's length.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import IO

import msgspec
import orjson
from msgspec import UNSET

from streamer.framework.errors.types import SourceError
from streamer.framework.json.canonical import DIGEST_PREFIX, SemanticDigest
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata
from streamer.framework.source.unit_rules import validate_unit

SPOOL_IN_MEMORY = 4 << 20
UNIT_KIND = "utterance"
BATCH_SIZE = 4096  # units encoded, checked, digested and written at a time

_published = msgspec.json.Encoder()
_canonical = msgspec.json.Encoder(order="sorted")
_check = msgspec.json.Decoder(SourceUnit)
_TIMED = b'"end_ms":'  # in published lines, only as a member name (quotes in strings are escaped)


def sequential_unit_id(number: int) -> str:
    """The unit ID of the ``number``-th unit (from 1): ``u000001``, ``u000002``, ..."""
    return f"u{number:06d}"


def clean_speaker(name: str | None) -> str | None:
    """A speaker name without surrounding white space; ``None`` when nothing is left."""
    if name is None:
        return None
    name = name.strip()
    return name or None


def utterance(
    unit_id: str,
    text: str,
    speaker: str | None = None,
    start_ms: int | None = None,
    end_ms: int | None = None,
) -> SourceUnit:
    """An imported unit of kind ``utterance``; ``None`` is no such metadata."""
    if start_ms is None and end_ms is None:
        if speaker is None:
            return SourceUnit(unit_id, UNIT_KIND, text)
        return SourceUnit(unit_id, UNIT_KIND, text, metadata=UnitMetadata(speaker))
    return SourceUnit(
        unit_id,
        UNIT_KIND,
        text,
        metadata=UnitMetadata(
            UNSET if speaker is None else speaker,
            UNSET if start_ms is None else start_ms,
            UNSET if end_ms is None else end_ms,
        ),
    )


class SpooledDocument:
    """An accepted, imported source document waiting in a spool; ``close()`` it."""

    def __init__(self, document_id: str, semantic_digest: str, unit_count: int, spool: IO[bytes]):
        self.document_id = document_id
        self.semantic_digest = semantic_digest
        self.unit_count = unit_count
        self._spool = spool

    def header(self) -> bytes:
        return document_header(self.document_id, self.semantic_digest)

    def write_to(self, out: IO[bytes]) -> None:
        """Write the JSON Lines document: the header line, then one line per unit."""
        out.write(self.header() + b"\n")
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out)

    def close(self) -> None:
        self._spool.close()


def document_header(document_id: str, semantic_digest: str) -> bytes:
    """The header line of a source document, without its newline."""
    return orjson.dumps({"document_id": document_id, "semantic_digest": semantic_digest})


def spool_document(document_id: str, units: Iterable[SourceUnit]) -> SpooledDocument:
    """Check, digest and spool every unit. Raises ``SourceError`` on the first invalid
    one; the spool is then discarded."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    try:
        digest, count = _write_units(units, spool)
    except BaseException:
        spool.close()
        raise
    return SpooledDocument(document_id, digest, count, spool)


def write_document(
    document_id: str, units: Iterable[SourceUnit], out: IO[bytes]
) -> tuple[str, int]:
    """Check, digest and write every unit straight into ``out``, an empty seekable file,
    after a header line of the final length that is written last: the semantic digest and
    the unit count. Raises ``SourceError`` on the first invalid unit, having written part
    of the document (the caller discards the file: see ``output.publication``)."""
    return write_encoded_document(document_id, encoded_batches(units), out)


Encoded = tuple[bytes | memoryview, bytes | memoryview, int]
"""A batch of units checked and encoded (``encode_batch``): their published lines, their
canonical lines (what the semantic digest hashes) and their count."""


def write_encoded_document(
    document_id: str, batches: Iterable[Encoded], out: IO[bytes]
) -> tuple[str, int]:
    """``write_document`` of the units of ``batches``, checked and encoded already (in
    document order; by other processes: ``importers.crd3_parallel``)."""
    placeholder = document_header(document_id, DIGEST_PREFIX + "0" * 64)
    out.write(placeholder + b"\n")
    digest, count = _write_encoded(batches, out)
    header = document_header(document_id, digest)
    assert len(header) == len(placeholder)
    out.flush()
    out.seek(0)
    out.write(header)
    out.seek(0, os.SEEK_END)
    return digest, count


def _write_units(units: Iterable[SourceUnit], out: IO[bytes]) -> tuple[str, int]:
    return _write_encoded(encoded_batches(units), out)


def _write_encoded(batches: Iterable[Encoded], out: IO[bytes]) -> tuple[str, int]:
    digest = SemanticDigest()
    count = 0
    for lines, canonical, size in batches:
        digest.add_canonical_lines(canonical)
        out.write(lines)
        count += size
    return digest.hexdigest(), count


def encoded_batches(units: Iterable[SourceUnit]) -> Iterator[Encoded]:
    """The units in batches of ``BATCH_SIZE``, each checked and encoded (``encode_batch``)."""
    count = 0
    remaining = iter(units)
    while batch := list(islice(remaining, BATCH_SIZE)):
        yield encode_batch(batch, count)
        count += len(batch)


def encode_batch(batch: list[SourceUnit], base: int = 0) -> Encoded:
    """The published and canonical lines of ``batch``, checked against the contract; else
    the located error of its first unit that breaks it (``base``: the units before it)."""
    try:
        lines = _published.encode_lines(batch)
        checked = _check.decode_lines(lines)
    except (msgspec.ValidationError, msgspec.DecodeError, TypeError, UnicodeEncodeError):
        checked = []
    if len(checked) != len(batch) or (_TIMED in lines and not _times_in_order(batch)):
        _refuse(batch, base)
    return lines, _canonical.encode_lines(batch), len(batch)


def _times_in_order(batch: list[SourceUnit]) -> bool:
    for unit in batch:
        metadata = unit.metadata
        if metadata is not UNSET:
            start, end = metadata.start_ms, metadata.end_ms
            if start is not UNSET and end is not UNSET and start > end:
                return False
    return True


def _refuse(batch: list[SourceUnit], base: int) -> None:
    """Raise the located error of the first unit of ``batch`` that breaks the contract."""
    for position, unit in enumerate(batch, base + 1):
        validate_unit(msgspec.to_builtins(unit), f"unit {position}")
    raise SourceError(f"unit {base + 1} or one after it breaks the source-document contract")

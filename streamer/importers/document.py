"""The shared writer: imported utterances in, a source document as JSON Lines out.

Every importer yields ``Utterance`` values in transcript order. ``spool_document`` builds
each one's ``SourceUnit`` struct once (``unit_id, kind, text, metadata``; metadata members
``speaker, start_ms, end_ms``, omitted when the unit has none), checking in the same loop
what the source-document contract asks of it (a unit that breaks it is validated again by
``validate_unit``, which raises the located, content-safe error), and then works on
batches: each batch is encoded by msgspec twice, as the published JSON lines written to a
temporary spool and as the canonical JSON of its list, added to the semantic digest in
one call. The header line needs the digest, which is known only at the end: the
caller writes the header and then the spool (``SpooledDocument.write_to``), so nothing is
published until the whole transcript has been read and accepted, and memory stays bounded
whatever the transcript's length.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from typing import IO, Any

import msgspec
import orjson
from msgspec import UNSET

from streamer.framework.canonical_json import MAX_SAFE_INTEGER, SemanticDigest
from streamer.framework.errors import SourceError
from streamer.framework.source.unit import SourceUnit, UnitMetadata
from streamer.framework.source.unit_rules import validate_unit

SPOOL_IN_MEMORY = 4 << 20
UNIT_KIND = "utterance"
BATCH_SIZE = 4096  # units encoded, digested and written at a time

_published = msgspec.json.Encoder()
_canonical = msgspec.json.Encoder(order="sorted")


def sequential_unit_id(number: int) -> str:
    """The unit ID of the ``number``-th unit (from 1): ``u000001``, ``u000002``, ..."""
    return f"u{number:06d}"


def clean_speaker(name: str | None) -> str | None:
    """A speaker name without surrounding white space; ``None`` when nothing is left."""
    if name is None:
        return None
    name = name.strip()
    return name or None


class Utterance(msgspec.Struct, frozen=True, gc=False):
    """One unit of an imported transcript. ``where`` locates it in the input for errors
    (``line 12 (cue 4)``, ``$.segments[3]``); it is never published."""

    unit_id: str
    text: str
    where: str
    speaker: str | None = None
    start_ms: int | None = None
    end_ms: int | None = None

    def unit(self) -> dict[str, Any]:
        unit: dict[str, Any] = {"unit_id": self.unit_id, "kind": UNIT_KIND, "text": self.text}
        metadata: dict[str, Any] = {}
        if self.speaker is not None:
            metadata["speaker"] = self.speaker
        if self.start_ms is not None:
            metadata["start_ms"] = self.start_ms
        if self.end_ms is not None:
            metadata["end_ms"] = self.end_ms
        if metadata:
            unit["metadata"] = metadata
        return unit


class SpooledDocument:
    """An accepted, imported source document waiting in a spool; ``close()`` it."""

    def __init__(self, document_id: str, semantic_digest: str, unit_count: int, spool: IO[bytes]):
        self.document_id = document_id
        self.semantic_digest = semantic_digest
        self.unit_count = unit_count
        self._spool = spool

    def header(self) -> bytes:
        return orjson.dumps(
            {"document_id": self.document_id, "semantic_digest": self.semantic_digest}
        )

    def write_to(self, out: IO[bytes]) -> None:
        """Write the JSON Lines document: the header line, then one line per unit."""
        out.write(self.header() + b"\n")
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out)

    def close(self) -> None:
        self._spool.close()


def spool_document(document_id: str, utterances: Iterable[Utterance]) -> SpooledDocument:
    """Validate, digest and spool every utterance. Raises ``SourceError`` on the first
    invalid one; the spool is then discarded."""
    digest = SemanticDigest()
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    count = 0
    try:
        batch: list[SourceUnit] = []
        append = batch.append
        for utterance in utterances:
            unit_id, text, speaker = utterance.unit_id, utterance.text, utterance.speaker
            start, end = utterance.start_ms, utterance.end_ms
            if type(text) is not str or type(unit_id) is not str or not unit_id:
                _refuse(utterance)
            if start is None and end is None:
                if speaker is None:
                    append(SourceUnit(unit_id, UNIT_KIND, text))
                    continue
                if type(speaker) is not str:
                    _refuse(utterance)
                metadata = UnitMetadata(speaker)
            else:
                if not (
                    (speaker is None or type(speaker) is str)
                    and (start is None or (type(start) is int and 0 <= start <= MAX_SAFE_INTEGER))
                    and (end is None or (type(end) is int and 0 <= end <= MAX_SAFE_INTEGER))
                    and (start is None or end is None or start <= end)
                ):
                    _refuse(utterance)
                metadata = UnitMetadata(
                    UNSET if speaker is None else speaker,
                    UNSET if start is None else start,
                    UNSET if end is None else end,
                )
            append(SourceUnit(unit_id, UNIT_KIND, text, metadata=metadata))
            if len(batch) >= BATCH_SIZE:
                count += _spool_batch(batch, digest, spool)
                batch.clear()
        count += _spool_batch(batch, digest, spool)
    except BaseException:
        spool.close()
        raise
    return SpooledDocument(document_id, digest.hexdigest(), count, spool)


def _spool_batch(batch: list[SourceUnit], digest: SemanticDigest, spool: IO[bytes]) -> int:
    if batch:
        digest.add_canonical_list(_canonical.encode(batch))
        spool.write(_published.encode_lines(batch))
    return len(batch)


def _refuse(utterance: Utterance) -> None:
    """Raise the located error of a unit that breaks the contract."""
    validate_unit(utterance.unit(), utterance.where)
    raise SourceError(f"{utterance.where}: the unit breaks the source-document contract")

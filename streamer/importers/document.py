"""The shared writer: imported utterances in, a source document as JSON Lines out.

Every importer yields ``Utterance`` values in transcript order. ``spool_document`` turns
each one into a unit object (``unit_id, kind, text, metadata``; metadata members
``speaker, start_ms, end_ms``, omitted when the unit has none), validates it against the
source-document contract, adds it to the semantic digest and writes it, compact, to a
temporary spool. The header line needs the digest, which is known only at the end: the
caller writes the header and then the spool (``SpooledDocument.write_to``), so nothing is
published until the whole transcript has been read and accepted, and memory stays bounded
whatever the transcript's length.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any

import orjson

from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.source.unit_rules import validate_unit

SPOOL_IN_MEMORY = 4 << 20
UNIT_KIND = "utterance"


def sequential_unit_id(number: int) -> str:
    """The unit ID of the ``number``-th unit (from 1): ``u000001``, ``u000002``, ..."""
    return f"u{number:06d}"


def clean_speaker(name: str | None) -> str | None:
    """A speaker name without surrounding white space; ``None`` when nothing is left."""
    if name is None:
        return None
    name = name.strip()
    return name or None


@dataclass(frozen=True, slots=True)
class Utterance:
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
        write = spool.write
        dumps = orjson.dumps
        for utterance in utterances:
            unit = validate_unit(utterance.unit(), utterance.where)
            digest.add(unit)
            write(dumps(unit) + b"\n")
            count += 1
    except BaseException:
        spool.close()
        raise
    return SpooledDocument(document_id, digest.hexdigest(), count, spool)

"""The evidence document's units as the page's rows, and its contexts' heads, collected
while validation reads the document (``validation.evidence_units.EvidenceSeen``): the
report of a valid bundle is then written from them, without reading the document again.

This is where a page row is made: ``[unit_id, kind, text, speaker, start_ms, end_ms]``
(``UnitRow``; the page unpacks each into named members once, ``assets/data.js``). The
rows are written as the page embeds them (``script_safe`` JSON, comma-separated) to a
spool (in memory up to 1 MiB, then a temporary file); only the contexts' references are
kept, and the distinct speakers (the page's characters are resolved for them). ``close()`` it.
"""

from __future__ import annotations

import shutil
import tempfile
from typing import IO, Any

import orjson
from msgspec import UNSET

from streamer.framework.source.source_unit import SourceUnit
from streamer.report.embedding import script_safe

SPOOL_IN_MEMORY = 1 << 20

UnitRow = tuple[str, str, str, str | None, int | None, int | None]
Reference = tuple[str, str, list[str]]  # (start_unit_id, end_unit_id, lane_ids)


class EvidenceRows:
    """What the page shows of an evidence document: ``heads`` (each context's first row,
    its row count and its references), the rows, spooled (``copy_rows``), and the
    ``speakers`` the rows name."""

    def __init__(self) -> None:
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        self.rows = 0
        self.heads: list[tuple[int, int, list[Reference]]] = []
        self._counted = 0  # the rows of the contexts in ``heads``
        self.speakers: set[str] = set()

    def units(self, units: list[SourceUnit], /) -> None:
        rows: list[UnitRow] = []
        for unit in units:
            metadata = unit.metadata
            if metadata is UNSET:
                rows.append((unit.unit_id, unit.kind, unit.text, None, None, None))
                continue
            speaker, start, end = metadata.speaker, metadata.start_ms, metadata.end_ms
            if speaker is not UNSET:
                self.speakers.add(speaker)
            rows.append(
                (
                    unit.unit_id,
                    unit.kind,
                    unit.text,
                    None if speaker is UNSET else speaker,
                    None if start is UNSET else start,
                    None if end is UNSET else end,
                )
            )
        if rows:
            listed = script_safe(orjson.dumps(rows))[1:-1]
            self._spool.write(listed if not self.rows else b"," + listed)
            self.rows += len(rows)

    def context(self, count: int, head: dict[str, Any], /) -> None:
        references = [
            (
                reference["source_ref"]["start_unit_id"],
                reference["source_ref"]["end_unit_id"],
                list(reference["lane_ids"]),
            )
            for reference in head["references"]
        ]
        self.heads.append((self._counted, count, references))
        self._counted += count

    def copy_rows(self, out: IO[bytes]) -> None:
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out, 1 << 20)

    def close(self) -> None:
        self._spool.close()

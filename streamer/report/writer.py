"""The report written from a validated bundle, the embedded data streamed into the page.

The data is one JSON object (made safe for ``<script>`` piece by piece)::

    {"title": ..., "source": {"document_id", "semantic_digest"},
     "session_units": the source document's unit count (from the chunk map), or null,
     "party": [[speaker, character], ...] (``evidence_rows.page_party``: the page looks a
              unit's speaker up exactly; may be empty),
     "rejections": null when not given, else {lane_id: {reason: count}},
     "lanes": [lane tables, in index.json order],
     "evidence": null when the bundle has no evidence context, else
                 {"window_units", "lanes" (the allowlist),
                  "units": [[unit_id, kind, text, speaker, start_ms, end_ms], ...],
                  "contexts": [[first unit's position in units, unit count,
                                [[start_unit_id, end_unit_id, lane_ids], ...]], ...]}}

Units are written in batches as they are read; only the contexts' references are kept
until the end. The same bundle gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.party import Party
from streamer.output import evidence_context
from streamer.output.bundle_documents import INDEX_FILE
from streamer.report import page
from streamer.report.embedding import script_safe
from streamer.report.evidence_rows import EvidenceRows, page_party
from streamer.report.evidence_stream import (
    Reference,
    UnitRow,
    contexts,
    read_header,
    session_units,
)
from streamer.report.lane_tables import lane_table

_BATCH = 2048


@dataclass(frozen=True)
class ReportSummary:
    """What a report shows: ``units`` and ``contexts`` are 0 without an evidence context."""

    document_id: str
    lanes: int
    records: int
    evidence: bool
    contexts: int
    units: int


def _json(value: Any) -> bytes:
    return script_safe(orjson.dumps(value))


def default_title(document_id: str) -> str:
    return f"streamer report: {document_id}"


def write_report(
    folder: Path,
    registry: ArtifactKindRegistry,
    out: IO[bytes],
    *,
    title: str | None = None,
    party: Party | None = None,
    rejections: Mapping[str, Mapping[str, int]] | None = None,
    evidence: EvidenceRows | None = None,
) -> ReportSummary:
    """Write the report of the bundle in ``folder`` (validated by the caller) to ``out``.

    ``party`` gives a speaker (a player) their character; ``rejections`` gives per lane
    the count of rejected candidates by reason (counts only, never values); ``evidence``:
    the evidence document's rows and heads as the caller's validation read them (then the
    document is not read again: the same bytes)."""
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    source = index["source"]
    tables = [lane_table(folder, descriptor, registry) for descriptor in index["lanes"]]
    shown_title = default_title(source["document_id"]) if title is None else title
    chunk_map = index.get("chunk_map")
    units_in_session = None if chunk_map is None else session_units(folder / chunk_map["file"])
    out.write(page.head(shown_title))
    out.write(b'{"title":' + _json(shown_title) + b',"source":' + _json(source))
    out.write(b',"session_units":' + _json(units_in_session))
    out.write(b',"party":' + _json(page_party(party, evidence, folder, index)))
    shown_rejections = None
    if rejections is not None:
        shown_rejections = {
            lane: {reason: int(count) for reason, count in sorted(reasons.items())}
            for lane, reasons in sorted(rejections.items())
        }
    out.write(b',"rejections":' + _json(shown_rejections))
    out.write(b',"lanes":[' + b",".join(_json(table.to_json()) for table in tables) + b"]")
    out.write(b',"evidence":')
    descriptor = index.get(evidence_context.DESCRIPTOR)
    context_count = unit_count = 0
    if descriptor is None:
        out.write(b"null")
    else:
        path = folder / descriptor["file"]
        header = read_header(path)
        out.write(b'{"window_units":' + _json(header.window_units))
        out.write(b',"lanes":' + _json(header.lanes) + b',"units":[')
        heads: list[tuple[int, int, list[Reference]]] = []
        if evidence is not None:
            evidence.copy_rows(out)
            heads, unit_count = evidence.heads, evidence.rows
        else:
            unit_count = _read_units(path, out, heads)
        context_count = len(heads)
        out.write(b'],"contexts":' + _json(heads) + b"}")
    out.write(b"}")
    out.write(page.tail())
    return ReportSummary(
        document_id=source["document_id"],
        lanes=len(tables),
        records=sum(len(table.records) for table in tables),
        evidence=descriptor is not None,
        contexts=context_count,
        units=unit_count,
    )


def _read_units(path: Path, out: IO[bytes], heads: list[tuple[int, int, list[Reference]]]) -> int:
    """Write the rows of the evidence document at ``path``, read again, and add each
    context's head to ``heads``; the count of rows."""
    unit_count = 0
    batch: list[UnitRow] = []
    with contexts(path) as walk:
        for head, rows in walk:
            first = unit_count
            for row in rows:
                batch.append(row)
                unit_count += 1
                if len(batch) == _BATCH:
                    _write_units(out, batch, first=unit_count == _BATCH)
                    batch = []
            heads.append((first, unit_count - first, head.references))
    if batch:
        _write_units(out, batch, first=unit_count == len(batch))
    return unit_count


def _write_units(out: IO[bytes], batch: list[UnitRow], *, first: bool) -> None:
    listed = _json(batch)
    out.write((b"" if first else b",") + listed[1:-1])

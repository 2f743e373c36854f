"""The report written from a validated bundle, the embedded data streamed into the page.

The data is one JSON object (made safe for ``<script>`` piece by piece)::

    {"title": ..., "source": {"document_id", "semantic_digest"},
     "session_units": the source document's unit count (from the chunk map), or null,
     "characters": [[speaker, character], ...] (``Party.as_written``: every player and
                   every speaker of the units, exactly as written, whose character the
                   party names; the page looks a speaker up exactly; may be empty),
     "rejections": null when not given, else {lane_id: {reason: count}},
     "run": null, or what the run knows that the bundle does not (``RunNotes``):
            {"notes": {lane_id: why its rules could find nothing}, "not_run": [lane, ...],
             "not_run_why": what would add them, or null},
     "review": absent without a review or --canon, else the game master's review
               (``streamer.api.reviews.page_review``):
               {"canon", "marks": {record ID: {"verdict", "note"?}}, "stale"},
     "lanes": [lane tables, in index.json order; each with "at": null, or per record the
               source position of the first unit it cites, or null],
     "evidence": null when the bundle has no evidence context, else
                 {"window_units", "lanes" (the allowlist),
                  "units": [[unit_id, kind, text, speaker, start_ms, end_ms], ...],
                  "contexts": [[first unit's position in units, unit count,
                                [[start_unit_id, end_unit_id, lane_ids], ...]], ...]}}

The units and contexts are those the caller's validation read (``EvidenceRows``, the one
place a page row is made): the evidence document is not read again. The same bundle gives
the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from streamer.framework.audience import AudienceView
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.party import Party
from streamer.output import evidence_context
from streamer.output.bundle_documents import INDEX_FILE
from streamer.report import page
from streamer.report.audience_view import (
    MarkedRows,
    marked_lanes,
    players_page,
    shown_lanes,
    shown_notes,
)
from streamer.report.embedding import script_safe
from streamer.report.evidence_rows import EvidenceRows, Reference
from streamer.report.evidence_stream import read_header, session_units
from streamer.report.lane_tables import lane_table
from streamer.report.static_tables import static_page


@dataclass(frozen=True)
class RunNotes:
    """What the run that made the bundle knows and the bundle does not, for the page to say
    why a lane is empty: ``notes``, per lane, why its rules could find nothing (the lane's
    receipt ``note``); ``not_run``, the default lanes of the kinds the run did not run, and
    ``not_run_why``, what would add them (``None`` when nothing is said)."""

    notes: Mapping[str, str]
    not_run: tuple[str, ...] = ()
    not_run_why: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "notes": dict(sorted(self.notes.items())),
            "not_run": list(self.not_run),
            "not_run_why": self.not_run_why,
        }


@dataclass(frozen=True)
class ReportSummary:
    """What a report shows: ``units`` and ``contexts`` are 0 without an evidence context."""

    document_id: str
    lanes: int
    records: int
    evidence: bool
    contexts: int
    units: int
    stale_reviews: tuple[str, ...] = ()  # reviewed record IDs no longer in the bundle


def _json(value: Any) -> bytes:
    return script_safe(orjson.dumps(value))


def default_title(document_id: str) -> str:
    return f"streamer report: {document_id}"


def _allowlist(folder: Path, index: dict[str, Any]) -> list[str]:
    descriptor = index.get(evidence_context.DESCRIPTOR)
    return [] if descriptor is None else read_header(folder / descriptor["file"]).lanes


def write_report(
    folder: Path,
    registry: ArtifactKindRegistry,
    out: IO[bytes],
    *,
    evidence: EvidenceRows,
    title: str | None = None,
    party: Party | None = None,
    rejections: Mapping[str, Mapping[str, int]] | None = None,
    run: RunNotes | None = None,
    positions: Callable[[set[str]], Mapping[str, int] | None] | None = None,
    review: Mapping[str, Any] | None = None,
    view: AudienceView | None = None,
) -> ReportSummary:
    """Write the report of the bundle in ``folder`` to ``out``; ``evidence``: the evidence
    document's rows and heads as the caller's validation of the bundle read them
    (``validate_bundle(folder, registry, evidence)``).

    ``party`` gives a speaker (a player) their character (matched by name key);
    ``rejections`` gives per lane the count of rejected candidates by reason (counts only,
    never values); ``run``, why lanes are empty or absent, when the run says;
    ``positions(unit_ids)``, when the source is at hand: their positions in the source
    document (the records' places in the session, for the timeline), or ``None``;
    ``view``: a player audience's (``evidence`` then a ``WithheldRows`` of it): the page
    shows what they may see (``audience_view``), no rejection counts and no lane not shown;
    the game master's with secrets (``evidence`` then a ``MarkedRows`` of it): the page
    marks the records and units a player page leaves out."""
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    source = index["source"]
    tables = [lane_table(folder, descriptor, registry) for descriptor in index["lanes"]]
    if positions is not None:
        cited = {start for table in tables for refs in table.references for start, _ in refs}
        found = positions(cited)
        if found is not None:
            tables = [table.placed(found) for table in tables]
    shown_title = default_title(source["document_id"]) if title is None else title
    chunk_map = index.get("chunk_map")
    units_in_session = None if chunk_map is None else session_units(folder / chunk_map["file"])
    notes = {} if run is None else run.notes
    heads, allowlist = evidence.heads, None
    if view is not None and view.players:
        shown = players_page(tables, view, evidence, _allowlist(folder, index))
        tables, heads, allowlist = shown.tables, shown.heads, shown.allowlist
        notes, rejections = shown_notes(notes, view), None
        run = run and RunNotes(notes, shown_lanes(run.not_run, view), run.not_run_why)
    not_run = ((), None) if run is None else (run.not_run, run.not_run_why)
    static = static_page(shown_title, source["document_id"], tables, notes, not_run, rejections)
    out.write(page.head(shown_title, static))
    out.write(b'{"title":' + _json(shown_title) + b',"source":' + _json(source))
    out.write(b',"session_units":' + _json(units_in_session))
    characters = party.as_written(evidence.speakers) if party else []
    if view is not None and view.players:
        characters = [pair for pair in characters if view.unit_shown("", "", pair[0])]
    out.write(b',"characters":' + _json(characters))
    shown_rejections = None
    if rejections is not None:
        shown_rejections = {
            lane: {reason: int(count) for reason, count in sorted(reasons.items())}
            for lane, reasons in sorted(rejections.items())
        }
    out.write(b',"rejections":' + _json(shown_rejections))
    out.write(b',"run":' + _json(None if run is None else run.to_json()))
    if review is not None:
        out.write(b',"review":' + _json(review))
    if view is not None and not view.players:  # the game master's, with secrets
        lanes = marked_lanes(tables, view)
    else:
        lanes = [table.to_json() for table in tables]
    out.write(b',"lanes":[' + b",".join(_json(lane) for lane in lanes) + b"]")
    out.write(b',"evidence":')
    descriptor = index.get(evidence_context.DESCRIPTOR)
    if descriptor is None:
        out.write(b"null")
    else:
        _write_evidence(out, folder / descriptor["file"], evidence, heads, allowlist)
    out.write(b"}")
    out.write(page.tail())
    return ReportSummary(
        document_id=source["document_id"],
        lanes=len(tables),
        records=sum(len(table.records) for table in tables),
        evidence=descriptor is not None,
        contexts=0 if descriptor is None else len(evidence.heads),
        units=0 if descriptor is None else evidence.rows,
    )


def _write_evidence(
    out: IO[bytes],
    path: Path,
    evidence: EvidenceRows,
    heads: list[tuple[int, int, list[Reference]]],
    allowlist: list[str] | None,
) -> None:
    """The ``evidence`` member: the header's, the rows, ``heads``; the allowlist given, or
    the document's; the secret units of a game master's page with secrets."""
    header = read_header(path)
    out.write(b'{"window_units":' + _json(header.window_units))
    shown_lanes = header.lanes if allowlist is None else allowlist
    out.write(b',"lanes":' + _json(shown_lanes) + b',"units":[')
    evidence.copy_rows(out)
    out.write(b'],"contexts":' + _json(heads))
    if isinstance(evidence, MarkedRows):
        out.write(b',"secret_units":' + _json(evidence.secret_units))
    out.write(b"}")

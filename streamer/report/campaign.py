"""The campaign page: the sessions of a ``streamer batch`` output folder on one page.

A static HTML page (no script at all): the sessions in manifest order with their record
counts and a link to each session's report; then, per lane, what recurs across sessions:
each distinct combination of the lane's textual members (by identity: the caller's
``identity`` function, e.g. the glossary's canonical name and its name key), with the
sessions it appears in, each a link to that session's report at the first such record
(``ID.html#record=LANE:N``, which the session page opens selected). Every string is
HTML-escaped; the Content-Security-Policy allows the one inline style and nothing else.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import quote, urlencode

from streamer.report import page
from streamer.report.lane_tables import LaneTable

Identity = Callable[[str], str]


@dataclass(frozen=True)
class CampaignSession:
    """One row of the batch summary: its report's file name when it has one."""

    document_id: str
    status: str
    report: str | None
    units: int | None = None
    lanes: list[LaneTable] = field(default_factory=list)


@dataclass(frozen=True)
class CampaignSummary:
    sessions: int
    linked: int
    lanes: int


def _textual(tables: Sequence[LaneTable]) -> list[str]:
    """The textual members of a lane's records across sessions (not its ID or references)."""
    columns: dict[str, None] = {}
    for table in tables:
        for column in table.columns:
            if column in (table.id_column, table.reference_column):
                continue
            values = [record.get(column) for record in table.records]
            if any(isinstance(v, str) for v in values) and all(
                v is None or isinstance(v, str) for v in values
            ):
                columns[column] = None
    return list(columns)


def _link(report: str, lane_id: str, record: int) -> str:
    return quote(report) + "#" + urlencode({"record": f"{lane_id}:{record + 1}"})


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _head(title: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{page.campaign_policy()}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_esc(title)}</title>\n"
        f"<style>{page.asset('campaign.css')}</style>\n"
        "</head>\n<body>\n"
    )


def _sessions_table(sessions: Sequence[CampaignSession], lane_ids: list[str]) -> list[str]:
    out = ['<table id="sessions">', "<thead><tr><th>#</th><th>Session</th><th>Status</th>"]
    out.append('<th class="number">Units</th>')
    out.extend(
        f'<th class="number" data-lane="{_esc(lane)}">{_esc(lane)}</th>' for lane in lane_ids
    )
    out.append("</tr></thead><tbody>")
    for number, session in enumerate(sessions, start=1):
        name = _esc(session.document_id)
        cell = f'<a href="{_esc(quote(session.report))}">{name}</a>' if session.report else name
        counts = {table.lane_id: len(table.records) for table in session.lanes}
        units = "" if session.units is None else f"{session.units:,}"
        out.append(
            f'<tr data-session="{name}"><td>{number}</td><td>{cell}</td>'
            f'<td>{_esc(session.status)}</td><td class="number">{units}</td>'
        )
        for lane in lane_ids:
            count = counts.get(lane)
            out.append(
                f'<td class="number" data-lane="{_esc(lane)}">{"" if count is None else count}</td>'
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    return out


def _lane_section(
    lane_id: str, sessions: Sequence[CampaignSession], identity: Identity
) -> list[str]:
    found = [
        (session, table)
        for session in sessions
        if session.report
        for table in session.lanes
        if table.lane_id == lane_id
    ]
    tables = [table for _, table in found]
    columns = _textual(tables)
    if not columns or not any(table.records for table in tables):
        return []
    labels: dict[str, str] = {}
    for table in tables:
        for column in columns:
            labels.setdefault(column, table.labels.get(column, column))

    def key_of(value: Any) -> str:
        return "\uffff" if not isinstance(value, str) else identity(value)  # unknown: last

    distinct = {
        column: {key_of(r.get(column)) for t in tables for r in t.records} for column in columns
    }
    order = sorted(columns, key=lambda column: (len(distinct[column]), columns.index(column)))
    # key -> (shown values, {document_id: (report, first record, count)})
    rows: dict[tuple[str, ...], tuple[list[Any], dict[str, list[Any]]]] = {}
    for session, table in found:
        assert session.report is not None
        for index, record in enumerate(table.records):
            key = tuple(key_of(record.get(column)) for column in order)
            shown, seen = rows.setdefault(key, ([record.get(column) for column in order], {}))
            entry = seen.setdefault(session.document_id, [session.report, index, 0])
            entry[2] += 1
    question = next((table.question for table in tables if table.question), None)
    out = [f'<section class="lane" data-lane="{_esc(lane_id)}">']
    out.append(f"<h2>{_esc(lane_id)} <span>across sessions</span></h2>")
    if question:
        out.append(f'<p class="question">{_esc(question)}</p>')
    out.append("<table><thead><tr>")
    out.extend(f"<th>{_esc(labels[column])}</th>" for column in order)
    out.append("<th>Sessions</th></tr></thead><tbody>")
    for key in sorted(rows, key=lambda key: tuple(part.casefold() for part in key)):
        shown, seen = rows[key]
        out.append("<tr>")
        for value in shown:
            out.append(
                '<td class="null">unknown</td>' if value is None else f"<td>{_esc(str(value))}</td>"
            )
        links = []
        for document_id, (report, index, count) in seen.items():
            times = f" \u00d7{count}" if count > 1 else ""
            href = _esc(_link(report, lane_id, index))
            links.append(
                f'<a href="{href}" data-session="{_esc(document_id)}" data-record="{index}">'
                f"{_esc(document_id)}{times}</a>"
            )
        out.append(f'<td class="sessions">{", ".join(links)}</td></tr>')
    out.append("</tbody></table></section>")
    return out


def write_campaign(
    title: str, sessions: Sequence[CampaignSession], out: IO[bytes], identity: Identity
) -> CampaignSummary:
    """Write the campaign page of ``sessions`` (in manifest order) to ``out``."""
    lane_ids: list[str] = []
    for session in sessions:
        for table in session.lanes:
            if table.lane_id not in lane_ids:
                lane_ids.append(table.lane_id)
    linked = sum(1 for session in sessions if session.report)
    parts = [_head(title), f"<header><h1>{_esc(title)}</h1>"]
    parts.append(
        f'<p class="notice">{len(sessions)} session{"s" * (len(sessions) != 1)} in manifest '
        f"order ({linked} with a report). Each entry below links to the session's report at "
        "that record. The reports hold transcript text: keep this folder as the "
        "transcripts.</p></header><main>"
    )
    parts.append("<h2>Sessions</h2>")
    parts.extend(_sessions_table(sessions, lane_ids))
    for lane_id in lane_ids:
        parts.extend(_lane_section(lane_id, sessions, identity))
    parts.append("</main>\n</body>\n</html>\n")
    out.write("\n".join(parts).encode())
    return CampaignSummary(len(sessions), linked, len(lane_ids))

"""The campaign page: the campaign registry of a ``streamer batch`` output folder on one
page (``streamer.output.campaign_registry``).

A static HTML page (no script at all): the sessions in manifest order with their lanes'
counts of records and a link to each session's report; then one table per section of the
registry (non-player characters, places, items: each entry with the names it was seen
under and the sessions it appears in), then the casts by character, session by session.
Every session and spell links to the session's report at its record
(``ID.html#record=LANE:RECORD_ID``, which the session page opens selected). Every string is
HTML-escaped; the Content-Security-Policy allows the one inline style and nothing else.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO
from urllib.parse import quote

from streamer.output.campaign_registry import (
    CampaignRegistry,
    Caster,
    Entry,
    RegistrySession,
)
from streamer.report import page

CASTS_SECTION = "casts"


@dataclass(frozen=True)
class CampaignSummary:
    sessions: int
    linked: int
    lanes: int


def record_href(report: str, lane_id: str, record_id: str) -> str:
    """The link opening ``report`` at one record (``REPORT#record=LANE:RECORD_ID``)."""
    return quote(report) + "#record=" + quote(f"{lane_id}:{record_id}", safe=":")


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


def _sessions_table(sessions: Sequence[RegistrySession]) -> list[str]:
    out = ['<table id="sessions">', '<thead><tr><th class="number">#</th><th>Session</th>']
    out.append("<th>Records</th></tr></thead><tbody>")
    for session in sessions:
        name = _esc(session.session_id)
        cell = f'<a href="{_esc(quote(session.report))}">{name}</a>' if session.report else name
        counts = " ".join(
            f'<span class="count" data-lane="{_esc(lane.lane_id)}">{_esc(lane.lane_id)} '
            f"<b>{lane.records}</b></span>"
            for lane in session.lanes
        )
        out.append(
            f'<tr data-session="{name}"><td class="number">{session.position}</td>'
            f'<td>{cell} <span class="status">{_esc(session.status)}</span></td>'
            f"<td>{counts}</td></tr>"
        )
    out.append("</tbody></table>")
    return out


Reports = Callable[[str], "str | None"]


def _session_link(reports: Reports, session_id: str, lane_id: str, record_ids: list[str]) -> str:
    """A session's name, linking to its report at the first of ``record_ids``, and how
    many records there are when more than one."""
    times = f' <span class="times">\u00d7{len(record_ids)}</span>' if len(record_ids) > 1 else ""
    report = reports(session_id)
    if report is None:
        return f"<span>{_esc(session_id)}</span>{times}"
    href = _esc(record_href(report, lane_id, record_ids[0]))
    return (
        f'<a href="{href}" data-session="{_esc(session_id)}" '
        f'data-record="{_esc(record_ids[0])}">{_esc(session_id)}</a>{times}'
    )


def _entry_row(entry: Entry, reports: Reports) -> str:
    others = [name for name in entry.seen_as if name != entry.name]
    also = f'<span class="aliases">also {_esc(", ".join(others))}</span>' if others else ""
    links = [
        _session_link(
            reports, session.session_id, session.lane_id, [r.record_id for r in session.records]
        )
        for session in entry.sessions
    ]
    return (
        f'<tr data-entry="{_esc(entry.entry_id)}"><td><span class="name">{_esc(entry.name)}'
        f'</span>{also}</td><td class="sessions">{", ".join(links)}</td></tr>'
    )


def _entries_section(
    section: str, title: str, entries: Sequence[Entry], reports: Reports
) -> list[str]:
    out = [f'<section class="entries" id="{_esc(section)}" data-section="{_esc(section)}">']
    out.append(f"<h2>{_esc(title)} <span>{len(entries)} across sessions</span></h2>")
    out.append("<table><thead><tr><th>Name</th><th>Sessions</th></tr></thead><tbody>")
    out.extend(_entry_row(entry, reports) for entry in entries)
    out.append("</tbody></table></section>")
    return out


def _caster_row(caster: Caster, reports: Reports) -> str:
    parts = []
    for session in caster.sessions:
        spells: dict[str, list[str]] = {}
        for cast in session.casts:
            spells.setdefault(cast.spell, []).append(cast.record_id)
        report = reports(session.session_id)
        shown = []
        for spell in sorted(spells, key=lambda name: (name.casefold(), name)):
            ids = spells[spell]
            times = f' <span class="times">\u00d7{len(ids)}</span>' if len(ids) > 1 else ""
            if report is None:
                shown.append(f"{_esc(spell)}{times}")
                continue
            href = _esc(record_href(report, session.lane_id, ids[0]))
            shown.append(
                f'<a href="{href}" data-session="{_esc(session.session_id)}" '
                f'data-record="{_esc(ids[0])}">{_esc(spell)}</a>{times}'
            )
        parts.append(
            f'<li><span class="session">{_esc(session.session_id)}</span> {", ".join(shown)}</li>'
        )
    return (
        f'<tr data-caster="{_esc(caster.caster)}"><td><span class="name">'
        f'{_esc(caster.caster)}</span></td><td><ul class="casts">{"".join(parts)}</ul></td></tr>'
    )


def _casters_section(title: str, casters: Sequence[Caster], reports: Reports) -> list[str]:
    out = [f'<section class="entries" id="{CASTS_SECTION}" data-section="{CASTS_SECTION}">']
    out.append(f"<h2>{_esc(title)} <span>{len(casters)} characters</span></h2>")
    out.append("<table><thead><tr><th>Character</th><th>Casts by session</th></tr></thead>")
    out.append("<tbody>")
    out.extend(_caster_row(caster, reports) for caster in casters)
    out.append("</tbody></table></section>")
    return out


def write_campaign(
    title: str, registry: CampaignRegistry, out: IO[bytes], titles: Mapping[str, str]
) -> CampaignSummary:
    """Write the campaign page of ``registry`` to ``out``; ``titles`` names each section
    (and ``casts``) as a person reads it (default: the section's name)."""
    sessions = registry.sessions
    reports = {session.session_id: session.report for session in sessions}
    linked = sum(1 for session in sessions if session.report)
    lanes = {lane.lane_id for session in sessions for lane in session.lanes}
    sections: dict[str, list[Entry]] = {}
    for entry in registry.entries:
        sections.setdefault(entry.section, []).append(entry)
    parts = [_head(title), f"<header><h1>{_esc(title)}</h1>"]
    parts.append(
        f'<p class="notice">{len(sessions)} session{"s" * (len(sessions) != 1)} in manifest '
        f"order ({linked} with a report). Each session and spell below links to the "
        "session's report at that record. The reports hold transcript text: keep this "
        "folder as the transcripts.</p>"
    )
    shown = [*sections, *([CASTS_SECTION] if registry.casters else [])]
    toc = (f'<a href="#{_esc(name)}">{_esc(titles.get(name, name))}</a>' for name in shown)
    parts.append(f'<nav class="toc">{" ".join(toc)}</nav></header><main>')
    parts.append("<h2>Sessions</h2>")
    parts.extend(_sessions_table(sessions))
    for section, entries in sections.items():
        parts.extend(_entries_section(section, titles.get(section, section), entries, reports.get))
    if registry.casters:
        parts.extend(
            _casters_section(
                titles.get(CASTS_SECTION, CASTS_SECTION), registry.casters, reports.get
            )
        )
    parts.append("</main>\n</body>\n</html>\n")
    out.write("\n".join(parts).encode())
    return CampaignSummary(len(sessions), linked, len(lanes))

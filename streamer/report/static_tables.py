"""The page without JavaScript: the session at a glance and the record tables as plain
HTML, in a ``<noscript>`` element (a browser running the script never builds it; search,
filters, the timeline and the evidence need the script).

Every string is escaped (``html.escape``); the values are the records' own, as the page's
script shows them: a string as itself, ``null`` as *unknown*, anything else as JSON; a
record's evidence as the unit ranges it cites."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from streamer.report.lane_tables import LaneTable


def _text(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: Any, label: str) -> str:
    """A record's member as a cell; ``label``: its column's, which a phone shows beside it."""
    named = f' data-label="{_text(label)}"'
    if value is None:
        return f'<td class="null"{named}>unknown</td>'
    if isinstance(value, str):
        return f"<td{named}>{_text(value)}</td>"
    return f'<td class="json"{named}>{_text(orjson.dumps(value).decode())}</td>'


def _ranges(cited: Sequence[tuple[str, str]]) -> str:
    shown = [start if start == end else f"{start}\u2013{end}" for start, end in cited]
    return f'<td class="refs" data-label="Evidence">{_text(", ".join(shown))}</td>'


def _plural(count: int, one: str) -> str:
    return f"{count:,} {one}" + ("" if count == 1 else "s")


def _why_empty(table: LaneTable, notes: Mapping[str, str], rejected: Mapping[str, int]) -> str:
    if table.lane_id in notes:
        return notes[table.lane_id]
    if sum(rejected.values()):
        return "what was found is not shown: its cited units do not say it"
    return "nothing found in this session"


def _table(table: LaneTable) -> Iterable[str]:
    columns = [
        column
        for column in table.columns
        if column != table.id_column and column != table.reference_column
    ]
    cites = any(table.references)
    yield "<table><thead><tr><th>#</th>"
    yield "".join(f"<th>{_text(table.labels.get(column, column))}</th>" for column in columns)
    yield "<th>Evidence</th>" if cites else ""
    yield "</tr></thead><tbody>"
    for number, (record, cited) in enumerate(zip(table.records, table.references, strict=True)):
        yield f'<tr><td class="position">{number + 1}</td>'
        yield "".join(
            _cell(record.get(column), table.labels.get(column, column)) for column in columns
        )
        yield _ranges(cited) if cites else ""
        yield "</tr>"
    yield "</tbody></table>"


def static_page(
    title: str,
    document_id: str,
    tables: Sequence[LaneTable],
    notes: Mapping[str, str],
    not_run: tuple[Sequence[str], str | None],
    rejections: Mapping[str, Mapping[str, int]] | None,
) -> bytes:
    """The ``<noscript>`` element of the page (see the module's documentation)."""
    parts = ['<noscript><div class="static">', f"<h1>{_text(title)}</h1>"]
    parts.append(f'<p class="source">{_text(document_id)} \u00b7 without JavaScript: the ')
    parts.append("records only (search, filters, the timeline and the evidence need it)</p>")
    parts.append("<h2>The session at a glance</h2><ul>")
    for table in tables:
        line = _plural(len(table.records), "record")
        if not table.records:
            line += ": " + _why_empty(table, notes, (rejections or {}).get(table.lane_id, {}))
        parts.append(f"<li><strong>{_text(table.lane_id)}</strong> {_text(line)}</li>")
    lanes, why = not_run
    if lanes:
        said = ", ".join(lanes) + ("" if why is None else f" ({why})")
        parts.append(f'<li class="not-run"><strong>not run</strong> {_text(said)}</li>')
    parts.append("</ul>")
    for table in tables:
        count = _plural(len(table.records), "record")
        parts.append(
            f'<h2>{_text(table.lane_id)}<span class="kind">{_text(table.artifact_kind)}</span>'
            f'<span class="count">{_text(count)}</span></h2>'
        )
        if table.question:
            parts.append(f'<p class="question">{_text(table.question)}</p>')
        if table.records:
            parts.extend(_table(table))
        else:
            parts.append('<p class="empty">no records</p>')
    parts.append("</div></noscript>\n")
    return "".join(parts).encode("utf-8")

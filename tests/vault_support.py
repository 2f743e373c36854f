"""Following every link of a notes vault: each ``[[wiki link]]`` to a note, each evidence
link to a report that exists and a record of that ID in the report's data."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from tests.report_support import embedded_data

WIKI = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")
MARKDOWN = re.compile(r"\]\(([^)\s]+)\)")


def notes_of(vault: Path) -> dict[str, bytes]:
    """Every file of ``vault`` (its ``/`` path: its bytes), the record included."""
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file()
    }


def report_records(report: Path) -> dict[str, set[str]]:
    """The record IDs of each lane of a session report, as its embedded data holds them."""
    data = embedded_data(report.read_bytes())
    return {
        lane["lane_id"]: {record[lane["id_column"]] for record in lane["records"]}
        for lane in data["lanes"]
        if lane["id_column"] is not None
    }


def follow_links(vault: Path) -> tuple[int, int]:
    """Follow every link of every note (assertions fail on the first broken one); the
    counts of wiki links and evidence links followed."""
    wiki = evidence = 0
    reports: dict[Path, dict[str, set[str]]] = {}
    for note in sorted(vault.rglob("*.md")):
        text = note.read_text(encoding="utf-8")
        for target in WIKI.findall(text):
            assert (vault / f"{target}.md").is_file(), (note, target)
            wiki += 1
        for href in MARKDOWN.findall(text):
            path, _, fragment = href.partition("#")
            report = (note.parent / unquote(path)).resolve()
            assert report.is_file(), (note, href)
            if not fragment:
                continue
            key, _, value = unquote(fragment).partition("=")
            lane_id, _, record_id = value.partition(":")
            assert key == "record", href
            if report not in reports:
                reports[report] = report_records(report)
            assert record_id in reports[report][lane_id], (note, href)
            evidence += 1
    return wiki, evidence

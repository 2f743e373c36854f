"""The notes of a notes vault, from a campaign registry: ``vault_notes(registry, ...)`` is
every note's path in the vault and its bytes.

- ``sessions/ID.md``: one per session, in manifest order: its report, its records by lane
  (each linking to the entry's note and to the record in the report), the casts by
  character;
- ``SECTION/NAME.md`` (``npcs``, ``places``, ``items``: the registry's sections): one per
  entry: its names, the sessions it appears in (first and last), and its facts per session,
  each linking to the session's note and to its evidence in the session's report
  (``REPORT#record=LANE:RECORD_ID``, relative to the note).

Notes link both ways with ``[[wiki links]]`` (``vault_names``). The bytes depend on the
registry and on where its folder is from the vault's (``reports``) alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from streamer.output.campaign_registry import (
    CampaignRegistry,
    Caster,
    CasterSession,
    CitedRecord,
    Entry,
    EntrySession,
    RegistrySession,
    UnitRange,
)
from streamer.output.vault_names import (
    markdown_text,
    relative_link,
    safe_name,
    unique_names,
    wiki_link,
)

SESSIONS = "sessions"


@dataclass(frozen=True)
class _Vault:
    registry: CampaignRegistry
    reports: str  # the registry's folder, relative to a note's folder ("/" separated)
    titles: Mapping[str, str]
    sessions: dict[str, str]  # session ID -> its note's path (no .md)
    entries: dict[str, str]  # entry ID -> its note's path (no .md)
    report_files: dict[str, str]  # session ID -> its report (when published)
    named_in: dict[str, list[tuple[Entry, EntrySession]]]  # session ID -> entries named
    cast_in: dict[str, list[tuple[Caster, CasterSession]]]  # session ID -> casters' casts

    def session_link(self, session_id: str) -> str:
        return wiki_link(self.sessions[session_id], session_id)

    def entry_link(self, entry: Entry) -> str:
        return wiki_link(self.entries[entry.entry_id], entry.name)

    def evidence(self, session_id: str, lane_id: str, record_id: str, label: str) -> str:
        report = self.report_of(session_id)
        if report is None:
            return markdown_text(label)
        return relative_link(label, f"{self.reports}/{report}", f"record={lane_id}:{record_id}")

    def report_of(self, session_id: str) -> str | None:
        return self.report_files.get(session_id)

    def title(self, section: str) -> str:
        return self.titles.get(section, section.replace("-", " ").capitalize())


T = TypeVar("T")
S = TypeVar("S", EntrySession, CasterSession)


def _by_session(pairs: list[tuple[T, S]]) -> dict[str, list[tuple[T, S]]]:
    """``pairs`` (in order) by the session ID of their second member."""
    found: dict[str, list[tuple[T, S]]] = {}
    for pair in pairs:
        found.setdefault(pair[1].session_id, []).append(pair)
    return found


def _units(units: list[UnitRange]) -> str:
    return ", ".join(first if first == last else f"{first}\u2013{last}" for first, last in units)


def _fact(vault: _Vault, session_id: str, lane_id: str, record: CitedRecord) -> str:
    """``named “NAME” at UNITS``, the units linking to the record in the session's report."""
    units = vault.evidence(
        session_id, lane_id, record.record_id, _units(record.units) or record.record_id
    )
    return f"named \u201c{markdown_text(record.name)}\u201d at {units}"


def _front(note: str, **members: str | int) -> list[str]:
    lines = ["---", f"streamer: {note}"]
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in members.items()]
    return [*lines, "---", ""]


def _session_note(vault: _Vault, session: RegistrySession) -> list[str]:
    sid = session.session_id
    lines = _front("session", session=sid, position=session.position)
    lines += [f"# Session {markdown_text(sid)}", ""]
    if session.report is not None:
        lines += [f"Report: {relative_link(session.report, f'{vault.reports}/{session.report}')}"]
    else:
        lines += [f"Not published ({markdown_text(session.status)})."]
    lines.append("")
    lanes: dict[tuple[str, str], list[str]] = {}
    for entry, seen in vault.named_in.get(sid, []):
        facts = "; ".join(_fact(vault, sid, seen.lane_id, r) for r in seen.records)
        key = (entry.section, seen.lane_id)
        lanes.setdefault(key, []).append(f"- {vault.entry_link(entry)}: {facts}")
    for (section, lane_id), items in sorted(lanes.items()):
        lines += [f"## {vault.title(section)} (lane {markdown_text(lane_id)})", "", *items, ""]
    casts = _casts(vault, sid)
    if casts:
        lines += ["## Casts by character", "", *casts]
    return lines


def _casts(vault: _Vault, sid: str) -> list[str]:
    lines: list[str] = []
    for caster, seen in vault.cast_in.get(sid, []):
        spells = [vault.evidence(sid, seen.lane_id, c.record_id, c.spell) for c in seen.casts]
        if spells:
            lines += [f"### {markdown_text(caster.caster)}", "", *(f"- {s}" for s in spells), ""]
    return lines


def _entry_note(vault: _Vault, entry: Entry) -> list[str]:
    lines = _front(entry.section, entry=entry.entry_id, artifact_kind=entry.artifact_kind)
    lines += [f"# {markdown_text(entry.name)}", ""]
    lines.append(
        f"{vault.title(entry.section)} \u00b7 seen as: "
        + ", ".join(markdown_text(name) for name in entry.seen_as)
    )
    lines += [
        "",
        f"First seen: {vault.session_link(entry.first_session)} \u00b7 last seen: "
        f"{vault.session_link(entry.last_session)} \u00b7 sessions: {len(entry.sessions)}",
        "",
        "## Sessions",
        "",
    ]
    for seen in entry.sessions:
        lines += [f"### {vault.session_link(seen.session_id)}", ""]
        lines += [f"- {_fact(vault, seen.session_id, seen.lane_id, r)}" for r in seen.records]
        lines.append("")
    return lines


def vault_notes(
    registry: CampaignRegistry, reports: str, titles: Mapping[str, str]
) -> dict[str, bytes]:
    """Every note of the vault of ``registry``: its path (``/`` separated, from the vault's
    root) and its bytes; ``reports``: the registry's folder relative to a note's folder;
    ``titles``: what a person reads for each section (default: the section, capitalized)."""
    session_names = unique_names(
        [s.session_id for s in registry.sessions],
        {s.session_id: s.session_id for s in registry.sessions},
    )
    folders = {entry.section: safe_name(entry.section) for entry in registry.entries}
    entries: dict[str, str] = {}
    for section, folder in sorted(folders.items()):
        chosen = [e for e in registry.entries if e.section == section]
        names = unique_names([e.entry_id for e in chosen], {e.entry_id: e.name for e in chosen})
        entries.update({key: f"{folder}/{name}" for key, name in names.items()})
    vault = _Vault(
        registry,
        reports,
        titles,
        {key: f"{SESSIONS}/{name}" for key, name in session_names.items()},
        entries,
        {s.session_id: s.report for s in registry.sessions if s.report is not None},
        _by_session([(e, seen) for e in registry.entries for seen in e.sessions]),
        _by_session([(c, seen) for c in registry.casters for seen in c.sessions]),
    )
    notes = {
        vault.sessions[s.session_id] + ".md": _session_note(vault, s) for s in registry.sessions
    }
    notes.update({entries[e.entry_id] + ".md": _entry_note(vault, e) for e in registry.entries})
    return {path: _text(lines) for path, lines in sorted(notes.items())}


def _text(lines: list[str]) -> bytes:
    while lines and not lines[-1]:
        lines.pop()
    return ("\n".join(lines) + "\n").encode("utf-8")

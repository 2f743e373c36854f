"""The campaign registry as the players may see it (``--audience players``): a view, the
registry itself never changes.

Left out: every entry whose name or a name it was seen under names one of the glossary's
secrets (``AudienceView.record_secret``), every record of an entry whose own name names
one, every caster or cast naming one, the records of the lanes the configuration marks
as the game master's, and the records the game master's review rejects (the registry
has left those out already). An entry or caster left with no record is left out; its
first and last sessions are those of the records kept. Session pages are the players'
(``reports``: session ID -> the players' page of that session)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from streamer.framework.audience import AudienceView
from streamer.output.campaign_registry import (
    CampaignRegistry,
    Caster,
    CasterSession,
    Entry,
    EntrySession,
)


def players_registry(
    registry: CampaignRegistry, view: AudienceView, reports: Mapping[str, str]
) -> CampaignRegistry:
    """``registry`` as ``view``'s players may see it, linking to ``reports``."""
    order = {session.session_id: session.position for session in registry.sessions}
    sessions = [
        msgspec.structs.replace(session, report=reports.get(session.session_id))
        for session in registry.sessions
    ]
    entries = [
        kept for entry in registry.entries if (kept := _entry(entry, view, order)) is not None
    ]
    casters = [shown for caster in registry.casters if (shown := _caster(caster, view)) is not None]
    return msgspec.structs.replace(registry, sessions=sessions, entries=entries, casters=casters)


def _secret(view: AudienceView, *names: str) -> bool:
    return any(view.record_secret({"name": name}) for name in names)


def _entry(entry: Entry, view: AudienceView, order: Mapping[str, int]) -> Entry | None:
    if _secret(view, entry.name, *entry.seen_as):
        return None
    sessions = []
    for session in entry.sessions:
        if not view.lane_shown(session.lane_id):
            continue
        records = [record for record in session.records if not _secret(view, record.name)]
        if records:
            sessions.append(EntrySession(session.session_id, session.lane_id, records))
    if not sessions:
        return None
    seen = sorted({record.name for session in sessions for record in session.records})
    ordered = sorted(order[session.session_id] for session in sessions)
    ids = {order[s.session_id]: s.session_id for s in sessions}
    return msgspec.structs.replace(
        entry,
        seen_as=seen,
        first_session=ids[ordered[0]],
        last_session=ids[ordered[-1]],
        sessions=sessions,
    )


def _caster(caster: Caster, view: AudienceView) -> Caster | None:
    if _secret(view, caster.caster, *caster.seen_as):
        return None
    sessions = []
    for session in caster.sessions:
        if not view.lane_shown(session.lane_id):
            continue
        casts = [cast for cast in session.casts if not _secret(view, cast.spell)]
        if casts:
            sessions.append(CasterSession(session.session_id, session.lane_id, casts))
    return msgspec.structs.replace(caster, sessions=sessions) if sessions else None

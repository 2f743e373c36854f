"""The session page for an audience (``framework.audience``): the evidence rows and the
lane tables a player audience may see. The game master's page is written as before.

``WithheldRows`` collects the evidence as ``EvidenceRows`` does, each withheld unit
written as ``[withheld]`` (its ID and kind kept; no text, speaker or times) and a run of
consecutive withheld units of one context as one row, the first's: the others' IDs are
*aliases* of it, so that a reference to them still finds its row. ``players_page`` then
keeps the lanes and records the players see, with their references through the aliases,
and the contexts' references of those records only. The game master's page with secrets
(``MarkedRows``, ``marked_lanes``) lists the records and units a player page leaves out,
for the page to mark them (``secret``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from msgspec import UNSET
from msgspec.structs import replace as struct_replace

from streamer.framework.audience import WITHHELD, AudienceView
from streamer.framework.source.source_unit import SourceUnit
from streamer.report.evidence_rows import EvidenceRows, Reference
from streamer.report.lane_tables import LaneTable

Head = tuple[int, int, list[Reference]]


def _speaker(unit: SourceUnit) -> str | None:
    if unit.metadata is UNSET or unit.metadata.speaker is UNSET:
        return None
    return unit.metadata.speaker


class MarkedRows(EvidenceRows):
    """``EvidenceRows`` of the game master's page with secrets: every row kept, the IDs of
    the units a player page withholds listed (``secret_units``, the page marks them)."""

    def __init__(self, view: AudienceView) -> None:
        super().__init__()
        self._view = view
        self.secret_units: list[str] = []

    def units(self, units: list[SourceUnit], /) -> None:
        secret = self._view.unit_secret
        self.secret_units.extend(
            unit.unit_id for unit in units if secret(unit.unit_id, unit.text, _speaker(unit))
        )
        super().units(units)


def marked_lanes(tables: Sequence[LaneTable], view: AudienceView) -> list[dict[str, Any]]:
    """The lanes of the game master's page, each with ``secret``: the indexes of its
    records that name a secret (the page marks them)."""
    lanes = []
    for table in tables:
        lane = table.to_json()
        lane["secret"] = [
            index for index, record in enumerate(table.records) if view.record_secret(record)
        ]
        lanes.append(lane)
    return lanes


class WithheldRows(EvidenceRows):
    """``EvidenceRows`` of a player page (see the module's documentation)."""

    def __init__(self, view: AudienceView) -> None:
        super().__init__()
        self._view = view
        self.aliases: dict[str, str] = {}  # a withheld unit's ID -> its run's row's ID
        self._run: str | None = None  # the row of the current run of withheld units
        self._emitted = 0  # the rows of the current context

    def units(self, units: list[SourceUnit], /) -> None:
        kept: list[SourceUnit] = []
        for unit in units:
            if self._view.unit_shown(unit.unit_id, unit.text, _speaker(unit)):
                self._run = None
                kept.append(unit)
            elif self._run is not None:
                self.aliases[unit.unit_id] = self._run
            else:
                self._run = unit.unit_id
                kept.append(struct_replace(unit, text=WITHHELD, metadata=UNSET))
        self._emitted += len(kept)
        super().units(kept)

    def context(self, count: int, head: dict[str, Any], /) -> None:
        super().context(self._emitted, head)
        self._run, self._emitted = None, 0

    def shown(self, unit_id: str) -> str:
        """The ID of the row that shows ``unit_id``."""
        return self.aliases.get(unit_id, unit_id)


@dataclass(frozen=True)
class PlayersPage:
    """What a player page shows: the tables, the contexts' heads, the allowlist."""

    tables: list[LaneTable]
    heads: list[Head]
    allowlist: list[str]


def _table(table: LaneTable, kept: list[int], rows: WithheldRows) -> LaneTable:
    return replace(
        table,
        records=[table.records[index] for index in kept],
        references=[
            [(rows.shown(start), rows.shown(end)) for start, end in table.references[index]]
            for index in kept
        ],
        at=None if table.at is None else [table.at[index] for index in kept],
        reference_column=table.reference_column if kept else None,
    )


def _heads(rows: WithheldRows, cited: set[tuple[str, str, str]]) -> list[Head]:
    """The contexts' heads with the references of the records shown only (``cited``:
    their references as the bundle has them, with their lanes), through the aliases."""
    heads: list[Head] = []
    for first, count, references in rows.heads:
        kept: dict[tuple[str, str], list[str]] = {}
        for start, end, lanes in references:
            shown = (rows.shown(start), rows.shown(end))
            for lane in lanes:
                if (start, end, lane) in cited and lane not in kept.get(shown, []):
                    kept.setdefault(shown, []).append(lane)
        heads.append((first, count, [(start, end, lanes) for (start, end), lanes in kept.items()]))
    return heads


def players_page(
    tables: Sequence[LaneTable],
    view: AudienceView,
    rows: EvidenceRows,
    allowlist: Sequence[str],
) -> PlayersPage:
    """The tables, heads and allowlist of the page ``view``'s players see (``rows``: a
    ``WithheldRows`` made for ``view``)."""
    assert isinstance(rows, WithheldRows)
    shown: list[LaneTable] = []
    cited: set[tuple[str, str, str]] = set()
    for table in tables:
        if not view.lane_shown(table.lane_id):
            continue
        kept = [
            index
            for index in view.records_shown(table.records)
            if table.id_column is None
            or not view.record_rejected(table.records[index].get(table.id_column))
        ]
        cited.update(
            (start, end, table.lane_id) for index in kept for start, end in table.references[index]
        )
        shown.append(_table(table, kept, rows))
    return PlayersPage(shown, _heads(rows, cited), list(shown_lanes(allowlist, view)))


def shown_lanes(lanes: Sequence[str], view: AudienceView) -> tuple[str, ...]:
    return tuple(lane for lane in lanes if view.lane_shown(lane))


def shown_notes(notes: Mapping[str, str], view: AudienceView) -> dict[str, str]:
    return {lane: note for lane, note in notes.items() if view.lane_shown(lane)}

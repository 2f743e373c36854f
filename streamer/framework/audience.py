"""The audience of a page: what the players may see of a bundle's records and units.

The game master (``game-master``, the default) sees everything. The players
(``players``) see neither the lanes the configuration marks as the game master's
(``audience: game-master`` on a lane of ``pipeline.lanes``), nor any record whose values
name a secret (``Secrets.value_names_one``), nor any evidence unit a secret withholds
(``Secrets.unit_withheld``: in a secret range, said by a secret speaker, or naming a
secret). A withheld unit is shown as ``WITHHELD``, without its text, speaker or times, and
a run of consecutive withheld units as one. It is a view: the bundle never changes.

Every page that shows a bundle to an audience (the session page, the campaign page, the
notes vault) asks ``AudienceView`` the same questions::

    view = AudienceView.of(audience, glossary.secrets, game_master_lanes)
    if view.lane_shown(lane_id):
        kept = view.records_shown(records)        # the indexes of the records shown
    view.unit_shown(unit_id, text, speaker)       # False: show WITHHELD instead
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamer.framework.secrets import Secrets

GAME_MASTER = "game-master"
PLAYERS = "players"
AUDIENCES = (GAME_MASTER, PLAYERS)
WITHHELD = "[withheld]"


@dataclass(frozen=True)
class AudienceView:
    """What one audience may see: ``players`` (a player audience) with the glossary's
    ``secrets`` and the ``game_master_lanes`` (lane IDs); the game master's view hides
    nothing (its ``secrets`` still say what it may mark)."""

    players: bool = False
    secrets: Secrets = field(default_factory=Secrets)
    game_master_lanes: frozenset[str] = frozenset()
    rejected: frozenset[str] = frozenset()  # record IDs the game master's review rejects

    def record_rejected(self, record_id: object) -> bool:
        """Whether the players do not see a record the game master rejected."""
        return self.players and record_id in self.rejected

    @classmethod
    def of(
        cls, audience: str, secrets: Secrets, game_master_lanes: Iterable[str] = ()
    ) -> AudienceView:
        if audience not in AUDIENCES:
            raise ValueError(f"unknown audience: {audience}")
        return cls(audience == PLAYERS, secrets, frozenset(game_master_lanes))

    def lane_shown(self, lane_id: str) -> bool:
        return not (self.players and lane_id in self.game_master_lanes)

    def record_secret(self, record: Mapping[str, Any]) -> bool:
        """Whether a record's values name a secret (whatever the audience)."""
        return self.secrets.value_names_one(record)

    def records_shown(self, records: Sequence[Mapping[str, Any]]) -> list[int]:
        """The indexes of the records this audience sees (of a lane it sees)."""
        if not self.players:
            return list(range(len(records)))
        return [index for index, record in enumerate(records) if not self.record_secret(record)]

    def unit_secret(self, unit_id: str, text: str, speaker: str | None) -> bool:
        """Whether a unit is withheld from the players (whatever the audience)."""
        return self.secrets.unit_withheld(unit_id, text, speaker)

    def unit_shown(self, unit_id: str, text: str, speaker: str | None) -> bool:
        return not (self.players and self.unit_secret(unit_id, text, speaker))


@dataclass(frozen=True)
class Visible:
    """What ``visible`` found: per lane, the indexes of the records shown; the unit IDs
    shown (of those given)."""

    records: dict[str, list[int]]
    units: set[str]


def visible(
    view: AudienceView,
    lanes: Mapping[str, Sequence[Mapping[str, Any]]],
    units: Iterable[tuple[str, str, str | None]],
) -> Visible:
    """Which records (per lane ID; a lane not shown has none) and which units
    (``(unit_id, text, speaker)``) ``view``'s audience may see."""
    return Visible(
        {
            lane_id: view.records_shown(records) if view.lane_shown(lane_id) else []
            for lane_id, records in lanes.items()
        },
        {unit_id for unit_id, text, speaker in units if view.unit_shown(unit_id, text, speaker)},
    )

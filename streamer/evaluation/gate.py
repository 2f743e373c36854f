"""The floors of ``--min-precision`` and ``--min-recall``: the exit status as a gate.

A floor is ``LANE=VALUE`` (that lane) or ``VALUE`` (every lane), VALUE from 0 to 1; a lane
given its own floor takes it instead of the floor of every lane. A lane below a floor is
one content-safe line naming the lane, the figure and the floor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from streamer.evaluation.scores import Counts
from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import ConfigurationError

EVERY_LANE = ""


@dataclass(frozen=True)
class Floors:
    precision: Mapping[str, float]
    recall: Mapping[str, float]

    def lanes(self) -> set[str]:
        return {lane for lane in (*self.precision, *self.recall) if lane != EVERY_LANE}

    def below(self, rows: Sequence[tuple[str, Counts]]) -> list[str]:
        """One line per figure below its floor, in the rows' order."""
        lines = []
        for lane, counts in rows:
            for option, floors, figure in (
                ("--min-precision", self.precision, counts.precision),
                ("--min-recall", self.recall, counts.recall),
            ):
                floor = floors.get(lane, floors.get(EVERY_LANE))
                if floor is not None and figure < floor:
                    name = option.removeprefix("--min-")
                    lines.append(f"lane {lane}: {name} {figure:.4f} is below {option} {floor:g}")
        return lines


def parse_floors(option: str, values: Sequence[str]) -> dict[str, float]:
    """``LANE=VALUE`` or ``VALUE`` items of ``option`` (a usage error when malformed)."""
    floors: dict[str, float] = {}
    for value in values:
        lane, _, figure = value.rpartition("=")
        try:
            floor = float(figure)
        except ValueError:
            floor = -1.0
        if not 0.0 <= floor <= 1.0:
            raise ConfigurationError(
                f"{option} {quoted(value)} is not a floor",
                hint=f"{option} 0.9 (every lane) or {option} spells=0.9, from 0 to 1",
            )
        if lane in floors:
            shown = "every lane" if lane == EVERY_LANE else f"lane {lane}"
            raise ConfigurationError(f"{option} gives {shown} two floors")
        floors[lane] = floor
    return floors

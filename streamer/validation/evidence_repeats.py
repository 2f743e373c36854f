"""The second pass over the evidence document, only when unit ID hashes repeat: each unit
ID seen before, and where (two IDs may share a hash: this confirms on the IDs)."""

from __future__ import annotations

from typing import IO, Any

from streamer.framework.errors.safe_text import quoted
from streamer.framework.json.events import ITEM, stream
from streamer.validation.evidence_shape import UNITS, stream_items
from streamer.validation.skeleton import Skeleton


def ignore(event: tuple[str, str, Any]) -> None:
    """Units reach the check directly; the skeleton only builds ``units`` as an array."""


DONE = Skeleton(())  # a finished context's skeleton, released


class Repeats:
    """The second pass, when hashes repeat: each unit ID seen before, where it repeats."""

    def __init__(self, repeated: set[int]) -> None:
        self.repeated = repeated
        self.seen: dict[str, str] = {}
        self.lines: list[str] = []
        self.contexts = -1
        self.count = 0
        self.context: Skeleton | None = None

    def read(self, handle: IO[bytes]) -> list[str]:
        top = Skeleton(("contexts",), {"contexts": self._on_context})
        for event in stream(handle, stream_items()):
            if event[1] == ITEM and event[0] == UNITS:
                self._unit(event[2])
            else:
                top.event(event)
        return self.lines

    def _on_context(self, event: tuple[str, str, Any]) -> None:
        if self.context is None or self.context.complete:
            self.context = Skeleton((), {"units": ignore})
            self.contexts += 1
            self.count = 0
        self.context.event(event)

    def _unit(self, unit: dict[str, Any]) -> None:
        unit_id = unit["unit_id"]
        where = f"$.contexts[{self.contexts}].units[{self.count}]"
        self.count += 1
        if hash(unit_id) in self.repeated:
            if unit_id in self.seen:
                self.lines.append(f"{where}: unit {quoted(unit_id)} repeats {self.seen[unit_id]}")
            else:
                self.seen[unit_id] = where

"""Source references: inclusive ranges of source units, cited by unit ID."""

from __future__ import annotations

from typing import Any, NamedTuple

from streamer.framework.errors import InputError
from streamer.framework.members import check_members

_MEMBERS = ("start_unit_id", "end_unit_id")
_NAMES = frozenset(_MEMBERS)


class SourceReference(NamedTuple):
    """An inclusive range of source units in document order.

    Unit IDs are opaque: a reference is resolved through document positions, never by
    comparing or doing arithmetic on the IDs themselves.
    """

    start_unit_id: str
    end_unit_id: str

    def to_json(self) -> dict[str, str]:
        return {"start_unit_id": self.start_unit_id, "end_unit_id": self.end_unit_id}


def parse_source_reference(
    value: Any, path: str, error: type[InputError] = InputError
) -> SourceReference:
    """Validate a ``{"start_unit_id", "end_unit_id"}`` object; ``path`` names it in errors."""
    if type(value) is not dict:
        raise error(f"{path} must be an object with start_unit_id and end_unit_id")
    if value.keys() != _NAMES:
        check_members(value, path, required=_MEMBERS, error=error)
    start, end = value["start_unit_id"], value["end_unit_id"]
    for name, unit_id in (("start_unit_id", start), ("end_unit_id", end)):
        if type(unit_id) is not str or not unit_id:
            raise error(f"{path}.{name} must be a non-empty string")
    return SourceReference(start, end)

"""Source references: inclusive ranges of source units, cited by unit ID."""

from __future__ import annotations

from typing import Annotated, ClassVar

import msgspec

_UnitId = Annotated[str, msgspec.Meta(min_length=1)]


class SourceReference(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """An inclusive range of source units in document order.

    Unit IDs are opaque: a reference is resolved through document positions, never by
    comparing or doing arithmetic on the IDs themselves. The one declaration of a source
    reference: records declare their evidence members with it (``kinds.records``).
    """

    plural: ClassVar[str] = "source references"  # in rules: "a list of source references"

    start_unit_id: _UnitId
    end_unit_id: _UnitId

    def to_json(self) -> dict[str, str]:
        return {"start_unit_id": self.start_unit_id, "end_unit_id": self.end_unit_id}

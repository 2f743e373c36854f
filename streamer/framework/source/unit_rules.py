"""The rules of one source unit, as a JSON object, and their located messages.

``validate_unit`` checks one unit against the ``SourceUnit`` declaration (its types, by
``declared_rules.explain``), then what a type cannot say: a self-reference cites the
unit itself, ``start_ms <= end_ms``. It is the source of every located, content-safe
error about a unit (the reader falls back to it when a batch fails to decode; importers
validate what they build through it). A validated unit has ``unit_id``, ``kind``,
``text`` and, when the unit has any, ``metadata``: the derived self-reference is dropped
(it is implied by the unit ID) and so is empty metadata. This is also exactly the object
the semantic digest covers.
"""

from __future__ import annotations

from typing import Any

import msgspec.inspect as mi

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import SourceError
from streamer.framework.json.declared_rules import explain
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata

_UNIT = mi.type_info(SourceUnit)
_HINTS = {
    SourceUnit: "a unit accepts unit_id, kind, text, source_ref and metadata",
    UnitMetadata: "accepted metadata is speaker, start_ms and end_ms",
}


def _error(path: str, rule: str, struct: mi.StructType | None) -> SourceError:
    hint = None if struct is None else _HINTS.get(struct.cls)
    return SourceError(f"{path}{rule}" if rule.startswith(":") else f"{path} {rule}", hint=hint)


def validate_unit(unit: Any, where: str) -> dict[str, Any]:
    """Check ``unit`` in place and return it normalized; ``where`` names it in errors
    (``$.units[41]`` or ``line 43``)."""
    if type(unit) is not dict:
        raise SourceError(f"{where}: a unit must be a JSON object")
    explain(_UNIT, unit, where, _error)
    if "source_ref" in unit:
        reference = unit.pop("source_ref")
        unit_id = unit["unit_id"]
        if reference["start_unit_id"] != unit_id or reference["end_unit_id"] != unit_id:
            raise SourceError(
                f"{where}.source_ref must cite exactly the unit itself ({quoted(unit_id)})"
            )
    metadata = unit.get("metadata")
    if metadata is not None:
        if not metadata:
            del unit["metadata"]
        elif metadata.get("start_ms", 0) > metadata.get("end_ms", metadata.get("start_ms", 0)):
            raise SourceError(f"{where}.metadata: start_ms is after end_ms")
    return unit

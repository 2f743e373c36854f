"""The reference validation of one source unit, as a JSON object, against the contract.

``validate_unit`` is the slow, exact statement of the rules and the source of every
located error message; ``source.units`` applies the same rules at parser speed.
A validated unit has ``unit_id``, ``kind``, ``text`` and, when the unit has any,
``metadata``: the derived self-reference is dropped (it is implied by the unit ID) and so
is empty metadata. This is also exactly the object the semantic digest covers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamer.framework.canonical_json import MAX_SAFE_INTEGER
from streamer.framework.errors import SourceError
from streamer.framework.members import check_members
from streamer.framework.safe_text import quoted

UNIT_MEMBERS = frozenset({"unit_id", "kind", "text", "source_ref", "metadata"})
METADATA_MEMBERS = frozenset({"speaker", "start_ms", "end_ms"})


def validate_unit(unit: Any, where: str) -> dict[str, Any]:
    """Check ``unit`` in place and return it normalized; ``where`` names it in errors
    (``$.units[41]`` or ``line 43``)."""
    if type(unit) is not dict:
        raise SourceError(f"{where}: a unit must be a JSON object")
    check_members(
        unit,
        UNIT_MEMBERS,
        (),
        where,
        _error("a unit accepts unit_id, kind, text, source_ref and metadata"),
    )
    unit_id = unit.get("unit_id")
    if type(unit_id) is not str or not unit_id:
        raise SourceError(f"{where}.unit_id must be a non-empty string")
    kind = unit.get("kind")
    if type(kind) is not str or not kind:
        raise SourceError(f"{where}.kind must be a non-empty string")
    if type(unit.get("text")) is not str:
        raise SourceError(f"{where}.text must be a string")
    if "source_ref" in unit:
        reference = unit.pop("source_ref")
        if (
            type(reference) is not dict
            or len(reference) != 2
            or reference.get("start_unit_id") != unit_id
            or reference.get("end_unit_id") != unit_id
        ):
            raise SourceError(
                f"{where}.source_ref must cite exactly the unit itself ({quoted(unit_id)})"
            )
    if "metadata" in unit:
        metadata = unit["metadata"]
        if type(metadata) is not dict:
            raise SourceError(f"{where}.metadata must be an object")
        if not metadata:
            del unit["metadata"]
        else:
            _validate_metadata(metadata, where)
    return unit


def _validate_metadata(metadata: dict[str, Any], where: str) -> None:
    check_members(
        metadata,
        METADATA_MEMBERS,
        (),
        f"{where}.metadata",
        _error("accepted metadata is speaker, start_ms and end_ms"),
    )
    if "speaker" in metadata and type(metadata["speaker"]) is not str:
        raise SourceError(f"{where}.metadata.speaker must be a string")
    start = metadata.get("start_ms")
    end = metadata.get("end_ms")
    for name, value in (("start_ms", start), ("end_ms", end)):
        if (value is not None or name in metadata) and (
            type(value) is not int or not 0 <= value <= MAX_SAFE_INTEGER
        ):
            raise SourceError(f"{where}.metadata.{name} must be an integer from 0 to 2**53-1")
    if start is not None and end is not None and start > end:
        raise SourceError(f"{where}.metadata: start_ms is after end_ms")


def _error(hint: str) -> Callable[[str, str], SourceError]:
    """The ``check_members`` error of a unit: its message as ``RecordError``'s."""

    def error(path: str, rule: str) -> SourceError:
        return SourceError(f"{path}{rule}" if rule.startswith(":") else f"{path} {rule}", hint=hint)

    return error

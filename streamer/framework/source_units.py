"""Validation of one source unit against the contract.

A validated unit is a plain ``dict`` with ``unit_id``, ``kind``, ``text`` and, when the unit
has any, ``metadata``: the derived self-reference is dropped (it is implied by the unit ID)
and so is empty metadata. This is also exactly the object the semantic digest covers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamer.framework.canonical_json import MAX_SAFE_INTEGER
from streamer.framework.errors import SourceError
from streamer.framework.safe_text import quoted

UNIT_MEMBERS = frozenset({"unit_id", "kind", "text", "source_ref", "metadata"})
METADATA_MEMBERS = frozenset({"speaker", "start_ms", "end_ms"})
METADATA_ORDER = ("speaker", "start_ms", "end_ms")


def validate_unit(unit: Any, where: str) -> dict[str, Any]:
    """Check ``unit`` in place and return it normalized; ``where`` names it in errors
    (``$.units[41]`` or ``line 43``)."""
    if type(unit) is not dict:
        raise SourceError(f"{where}: a unit must be a JSON object")
    if not UNIT_MEMBERS.issuperset(unit):
        raise SourceError(
            f"{where}: unknown unit member {_first_unknown(unit, UNIT_MEMBERS)}",
            hint="a unit accepts unit_id, kind, text, source_ref and metadata",
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


_PLAIN = frozenset({"unit_id", "kind", "text"})
_WITH_METADATA = frozenset({"unit_id", "kind", "text", "metadata"})
_FULL_METADATA = frozenset(METADATA_MEMBERS)
_SPEAKER_ONLY = frozenset({"speaker"})


def validate_batch(units: list[Any], where: Callable[[int], str]) -> None:
    """Validate ``units`` in place, as ``validate_unit`` would each of them.

    The common shapes (no self-reference; metadata absent, speaker only, or all three
    members) are checked inline; anything else goes through ``validate_unit``, which
    normalizes it or raises the located error. ``where(i)`` names unit ``i``.
    """
    for index, unit in enumerate(units):
        if type(unit) is dict:
            keys = unit.keys()
            if keys == _WITH_METADATA:
                metadata = unit["metadata"]
                if type(metadata) is dict:
                    names = metadata.keys()
                    if names == _FULL_METADATA:
                        start = metadata["start_ms"]
                        end = metadata["end_ms"]
                        regular = (
                            type(metadata["speaker"]) is str
                            and type(start) is int
                            and type(end) is int
                            and 0 <= start <= end <= MAX_SAFE_INTEGER
                        )
                    else:
                        regular = names == _SPEAKER_ONLY and type(metadata["speaker"]) is str
                else:
                    regular = False
            else:
                regular = keys == _PLAIN
            if (
                regular
                and type(unit["unit_id"]) is str
                and unit["unit_id"]
                and type(unit["kind"]) is str
                and unit["kind"]
                and type(unit["text"]) is str
            ):
                continue
        validate_unit(unit, where(index))


def _validate_metadata(metadata: dict[str, Any], where: str) -> None:
    if not METADATA_MEMBERS.issuperset(metadata):
        raise SourceError(
            f"{where}.metadata: unknown member {_first_unknown(metadata, METADATA_MEMBERS)}",
            hint="accepted metadata is speaker, start_ms and end_ms",
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


def _first_unknown(obj: dict[str, Any], known: frozenset[str]) -> str:
    return quoted(sorted(set(obj) - known)[0])


def published_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """The published form: ``unit_id, kind, text, source_ref, metadata`` in that order."""
    unit_id = unit["unit_id"]
    out: dict[str, Any] = {
        "unit_id": unit_id,
        "kind": unit["kind"],
        "text": unit["text"],
        "source_ref": {"start_unit_id": unit_id, "end_unit_id": unit_id},
    }
    metadata = unit.get("metadata")
    if metadata:
        out["metadata"] = {key: metadata[key] for key in METADATA_ORDER if key in metadata}
    return out

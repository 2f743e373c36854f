"""Declarative validation of lane records into typed records.

A kind lists its members with a check for each; ``record_parser`` turns that list into
the kind's ``parse_record``. Errors name the JSON path of the offending member and never
its value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from streamer.framework.errors import LaneOutputError
from streamer.framework.safe_text import quoted
from streamer.framework.source.reference import SourceReference, parse_source_reference

R = TypeVar("R")
Check = Callable[[Any, str], Any]


def non_empty_string(value: Any, path: str) -> str:
    if type(value) is not str or not value:
        raise LaneOutputError(f"{path} must be a non-empty string")
    return value


def nullable_string(value: Any, path: str) -> str | None:
    return None if value is None else non_empty_string(value, path)


def positive_integer_or_null(value: Any, path: str) -> int | None:
    if value is not None and (type(value) is not int or value < 1):
        raise LaneOutputError(f"{path} must be an integer >= 1 or null")
    return value


def one_of(*choices: str) -> Check:
    def check(value: Any, path: str) -> str:
        if value not in choices:
            raise LaneOutputError(f"{path} must be one of: {', '.join(choices)}")
        return str(value)

    return check


def source_reference(value: Any, path: str) -> SourceReference:
    return parse_source_reference(value, path, LaneOutputError)


def source_references(value: Any, path: str) -> tuple[SourceReference, ...]:
    if type(value) is not list or not value:
        raise LaneOutputError(f"{path} must be a non-empty list of source references")
    return tuple(source_reference(item, f"{path}[{index}]") for index, item in enumerate(value))


def record_parser(
    members: Sequence[tuple[str, Check]], build: Callable[..., R]
) -> Callable[[Any, str], R]:
    """A parser that accepts exactly ``members`` (all required) and builds a typed record."""
    names = frozenset(name for name, _ in members)

    def parse(record: Any, path: str) -> R:
        if type(record) is not dict:
            raise LaneOutputError(f"{path} must be an object")
        if record.keys() != names:
            unknown = sorted(set(record) - names)
            if unknown:
                raise LaneOutputError(f"{path}: unknown member {quoted(unknown[0])}")
            missing = sorted(names - set(record))
            raise LaneOutputError(f"{path}.{missing[0]} is required")
        return build(**{name: check(record[name], f"{path}.{name}") for name, check in members})

    return parse


def dataclass_to_json(record: Any) -> dict[str, Any]:
    """A record dataclass as JSON-ready data, members in field order."""
    return {
        field.name: _json_value(getattr(record, field.name)) for field in dataclasses.fields(record)
    }


def _json_value(value: Any) -> Any:
    if isinstance(value, SourceReference):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value

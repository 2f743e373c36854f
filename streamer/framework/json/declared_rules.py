"""The rules a msgspec ``Struct`` declares, stated as content-safe sentences.

msgspec parses and validates against a declaration at speed, but its errors quote
values. When it refuses, ``explain`` walks the same declaration (``msgspec.inspect``
type information) over the same data and raises the first rule broken, as a JSON path
and what the member must be (``$.records[3].caster must be a non-empty string or
null``), never the value. Records (``kinds.records``) and source units
(``source.unit_rules``) are checked this way, so each is declared once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec.inspect as mi

from streamer.framework.json.canonical import MAX_SAFE_INTEGER
from streamer.framework.json.members import check_members

RuleError = Callable[[str, str, mi.StructType | None], Exception]
"""``error(path, rule, struct)``: the exception for a broken rule."""


def explain(info: mi.Type, value: Any, path: str, error: RuleError) -> None:
    """Raise ``error(path, rule, struct)`` for the first rule ``value`` breaks (``struct``:
    the declaration whose members were checked, for an unknown or missing member); return
    when it breaks none."""
    if isinstance(info, mi.UnionType):
        if value is None and any(isinstance(t, mi.NoneType) for t in info.types):
            return
        (inner,) = (t for t in info.types if not isinstance(t, mi.NoneType))
        if not fits(inner, value):
            raise error(path, f"{rule_of(inner)} or null", None)
        explain(inner, value, path, error)
    elif isinstance(info, mi.StructType):
        if type(value) is not dict:
            raise error(path, rule_of(info), None)
        required = [field.encode_name for field in info.fields if field.required]
        check_members(
            value,
            [field.encode_name for field in info.fields],
            required,
            path,
            lambda where, rule: error(where, rule, info),
        )
        for field in info.fields:
            if field.encode_name in value:
                explain(field.type, value[field.encode_name], f"{path}.{field.encode_name}", error)
    elif isinstance(info, mi.ListType):
        if type(value) is not list or len(value) < (info.min_length or 0):
            raise error(path, rule_of(info), None)
        for index, item in enumerate(value):
            explain(info.item_type, item, f"{path}[{index}]", error)
    elif not fits(info, value):
        raise error(path, rule_of(info), None)


def fits(info: mi.Type, value: Any) -> bool:
    """Whether ``value`` has the JSON type of ``info`` (and, for scalars, its bounds)."""
    if isinstance(info, mi.StrType):
        return type(value) is str and len(value) >= (info.min_length or 0)
    if isinstance(info, mi.IntType):
        return (
            type(value) is int
            and (info.ge is None or value >= info.ge)
            and (info.le is None or value <= info.le)
        )
    if isinstance(info, mi.LiteralType):
        return any(type(value) is type(choice) and value == choice for choice in info.values)
    if isinstance(info, mi.StructType):
        return type(value) is dict
    if isinstance(info, mi.ListType):
        return type(value) is list
    raise TypeError(f"records cannot declare {info!r}")  # pragma: no cover


def rule_of(info: mi.Type) -> str:
    """What a value of ``info`` must be, as the end of a sentence."""
    if isinstance(info, mi.StrType):
        return "must be a non-empty string" if info.min_length else "must be a string"
    if isinstance(info, mi.IntType):
        if info.ge is not None and info.le is not None:
            return f"must be an integer from {_bound(info.ge)} to {_bound(info.le)}"
        return f"must be an integer >= {info.ge}" if info.ge is not None else "must be an integer"
    if isinstance(info, mi.LiteralType):
        return "must be one of: " + ", ".join(str(choice) for choice in info.values)
    if isinstance(info, mi.StructType):
        return "must be an object with " + _and(field.encode_name for field in info.fields)
    if isinstance(info, mi.ListType):
        noun = _noun(info.item_type)
        return (
            f"must be a non-empty list of {noun}"
            if info.min_length
            else f"must be a list of {noun}"
        )
    raise TypeError(f"records cannot declare {info!r}")  # pragma: no cover


def _noun(info: mi.Type) -> str:
    if isinstance(info, mi.StructType):  # a Struct may name itself (``SourceReference``)
        return str(getattr(info.cls, "plural", "objects"))
    return "values"


def _and(names: Iterable[str]) -> str:
    listed = list(names)
    return ", ".join(listed[:-1]) + " and " + listed[-1] if len(listed) > 1 else listed[0]


def _bound(value: int) -> str:
    return "2**53-1" if value == MAX_SAFE_INTEGER else str(value)

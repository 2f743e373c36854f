"""Records declared once, as msgspec ``Struct`` types, and everything derived from them.

A kind's record is one ``Struct`` (``forbid_unknown_fields=True``); its member types say
the rules (``NonEmpty`` strings, ``Annotated[int, msgspec.Meta(ge=1)] | None``, a
``Literal`` enum, ``SourceReferences``...). From that one declaration come:

* ``RecordType.parse``: JSON data to a typed record, every rule checked, every error a
  ``RecordError`` naming the JSON path and the rule broken, never the value;
* ``RecordType.to_json``: the record as JSON-ready data, members in declaration order;
* ``RecordType.schema``: the JSON Schema (draft 2020-12) of one record;
* ``RecordType.without``: the same record less one member (the model-facing record).

The rules are read from ``msgspec.inspect`` type information, so the parser and the schema
cannot disagree with the declaration. msgspec parses; the walk in ``_explain`` runs only
when it refuses, to say where and why in a content-safe sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Annotated, Any, Generic, TypeVar

import msgspec
import msgspec.inspect as mi
import msgspec.structs

from streamer.framework.errors import LaneOutputError
from streamer.framework.members import check_members
from streamer.framework.source.reference import SourceReference

R = TypeVar("R", bound=msgspec.Struct)

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
PositiveInteger = Annotated[int, msgspec.Meta(ge=1)]
SourceReferences = Annotated[list[SourceReference], msgspec.Meta(min_length=1)]

SOURCE_REFERENCE_DEF = "source_reference"
SOURCE_REF_SCHEMA: dict[str, Any] = {"$ref": f"#/$defs/{SOURCE_REFERENCE_DEF}"}
SOURCE_REFERENCE_SCHEMA: dict[str, Any] = {
    "description": "An inclusive range of source units in document order, cited by unit ID.",
    "type": "object",
    "required": ["start_unit_id", "end_unit_id"],
    "additionalProperties": False,
    "properties": {
        "start_unit_id": {"type": "string", "minLength": 1},
        "end_unit_id": {"type": "string", "minLength": 1},
    },
}


class RecordError(LaneOutputError):
    """A record broke its declaration: ``path`` (a JSON path) and ``rule`` (what it must
    be) say where and why; neither ever holds a value."""

    def __init__(self, path: str, rule: str) -> None:
        self.path = path
        self.rule = rule
        super().__init__(f"{path}{rule}" if rule.startswith(":") else f"{path} {rule}")


class RecordType(Generic[R]):
    """The parser, encoder and schema of one record ``Struct``."""

    def __init__(self, struct: type[R]) -> None:
        info = mi.type_info(struct)
        if not isinstance(info, mi.StructType) or not info.forbid_unknown_fields:
            raise TypeError(f"{struct.__name__} must be a Struct with forbid_unknown_fields=True")
        self.struct = struct
        self.info = info

    @cached_property
    def members(self) -> tuple[str, ...]:
        return tuple(field.encode_name for field in self.info.fields)

    def parse(self, data: Any, path: str) -> R:
        """``data`` (parsed JSON) as a typed record; ``path`` names it in errors."""
        try:
            return msgspec.convert(data, self.struct, strict=True)
        except msgspec.ValidationError:
            _explain(self.info, data, path)
            raise RecordError(path, "breaks its declaration") from None  # pragma: no cover

    def to_json(self, record: R) -> dict[str, Any]:
        data: dict[str, Any] = msgspec.to_builtins(record)
        return data

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of one record; a source reference is ``#/$defs/source_reference``."""
        return _schema(self.info)

    def standalone_schema(self) -> dict[str, Any]:
        """``schema()`` with the ``$defs`` it refers to, usable on its own."""
        return {**self.schema(), "$defs": {SOURCE_REFERENCE_DEF: SOURCE_REFERENCE_SCHEMA}}

    def without(self, member: str, name: str) -> RecordType[Any]:
        """The same declaration less ``member``: a new ``Struct`` called ``name``."""
        fields = [
            (field.name, field.type)
            for field in msgspec.structs.fields(self.struct)
            if field.encode_name != member
        ]
        if len(fields) == len(self.info.fields):
            raise ValueError(f"{self.struct.__name__} has no member {member}")
        return RecordType(
            msgspec.defstruct(name, fields, forbid_unknown_fields=True, module=__name__)
        )


def _explain(info: mi.Type, value: Any, path: str) -> None:
    """Raise the ``RecordError`` of the first rule ``value`` breaks; return if none."""
    if isinstance(info, mi.UnionType):
        if value is None and any(isinstance(t, mi.NoneType) for t in info.types):
            return
        (inner,) = (t for t in info.types if not isinstance(t, mi.NoneType))
        if not _fits(inner, value):
            raise RecordError(path, f"{_rule(inner)} or null")
        _explain(inner, value, path)
    elif isinstance(info, mi.StructType):
        if type(value) is not dict:
            raise RecordError(path, _rule(info))
        required = [field.encode_name for field in info.fields if field.required]
        check_members(
            value, [field.encode_name for field in info.fields], required, path, RecordError
        )
        for field in info.fields:
            if field.encode_name in value:
                _explain(field.type, value[field.encode_name], f"{path}.{field.encode_name}")
    elif isinstance(info, mi.ListType):
        if type(value) is not list or len(value) < (info.min_length or 0):
            raise RecordError(path, _rule(info))
        for index, item in enumerate(value):
            _explain(info.item_type, item, f"{path}[{index}]")
    elif not _fits(info, value):
        raise RecordError(path, _rule(info))


def _fits(info: mi.Type, value: Any) -> bool:
    """Whether ``value`` has the JSON type of ``info`` (and, for scalars, its bounds)."""
    if isinstance(info, mi.StrType):
        return type(value) is str and len(value) >= (info.min_length or 0)
    if isinstance(info, mi.IntType):
        return type(value) is int and (info.ge is None or value >= info.ge)
    if isinstance(info, mi.LiteralType):
        return any(type(value) is type(choice) and value == choice for choice in info.values)
    if isinstance(info, mi.StructType):
        return type(value) is dict
    if isinstance(info, mi.ListType):
        return type(value) is list
    raise TypeError(f"records cannot declare {info!r}")  # pragma: no cover


def _rule(info: mi.Type) -> str:
    """What a value of ``info`` must be, as the end of a sentence."""
    if isinstance(info, mi.StrType):
        return "must be a non-empty string" if info.min_length else "must be a string"
    if isinstance(info, mi.IntType):
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
    if isinstance(info, mi.StructType) and info.cls is SourceReference:
        return "source references"
    return "objects" if isinstance(info, mi.StructType) else "values"


def _and(names: Iterable[str]) -> str:
    listed = list(names)
    return ", ".join(listed[:-1]) + " and " + listed[-1] if len(listed) > 1 else listed[0]


def _schema(info: mi.Type) -> dict[str, Any]:
    if isinstance(info, mi.StrType):
        return (
            {"type": "string", "minLength": info.min_length}
            if info.min_length
            else {"type": "string"}
        )
    if isinstance(info, mi.IntType):
        return (
            {"type": "integer", "minimum": info.ge} if info.ge is not None else {"type": "integer"}
        )
    if isinstance(info, mi.LiteralType):
        return {"enum": list(info.values)}
    if isinstance(info, mi.UnionType):
        (inner,) = (t for t in info.types if not isinstance(t, mi.NoneType))
        schema = _schema(inner)
        if "type" not in schema or not isinstance(schema["type"], str):
            return {"anyOf": [schema, {"type": "null"}]}
        return {**schema, "type": [schema["type"], "null"]}
    if isinstance(info, mi.ListType):
        schema = (
            {"type": "array", "minItems": info.min_length} if info.min_length else {"type": "array"}
        )
        return {**schema, "items": _schema(info.item_type)}
    if isinstance(info, mi.StructType):
        if info.cls is SourceReference:
            return SOURCE_REF_SCHEMA
        return object_schema({field.encode_name: _schema(field.type) for field in info.fields})
    raise TypeError(f"records cannot declare {info!r}")  # pragma: no cover


def object_schema(members: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    """An object with exactly ``members``, all required unless ``required`` says which."""
    return {
        "type": "object",
        "required": list(members if required is None else required),
        "additionalProperties": False,
        "properties": members,
    }

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
cannot disagree with the declaration. msgspec parses; ``declared_rules.explain`` runs only
when it refuses, to say where and why in a content-safe sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec
import msgspec.inspect as mi
import msgspec.structs

from streamer.framework.errors.types import LaneOutputError
from streamer.framework.json.declared_rules import explain
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


def _record_error(path: str, rule: str, struct: mi.StructType | None) -> RecordError:
    return RecordError(path, rule)


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

    def cites(self, member: str) -> Literal["one", "many"] | None:
        """How ``member`` cites evidence, by its declared type: ``"one"`` for a
        ``SourceReference``, ``"many"`` for a list of them (``SourceReferences``), ``None``
        for any other type (or no such member)."""
        for field in self.info.fields:
            if field.encode_name != member:
                continue
            kind = field.type
            if isinstance(kind, mi.ListType):
                return "many" if _is_reference(kind.item_type) else None
            return "one" if _is_reference(kind) else None
        return None

    def parse(self, data: Any, path: str) -> R:
        """``data`` (parsed JSON) as a typed record; ``path`` names it in errors."""
        try:
            return msgspec.convert(data, self.struct, strict=True)
        except msgspec.ValidationError:
            explain(self.info, data, path, _record_error)
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


def _is_reference(info: mi.Type) -> bool:
    return isinstance(info, mi.StructType) and info.cls is SourceReference


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

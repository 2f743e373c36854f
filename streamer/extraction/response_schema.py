"""The response schema of a lane: ``{"records": [model-facing record]}``.

``response_schema(kind)`` is the full schema, from the kind's declaration
(``model_record_schema``); every answer is validated against the declaration itself, so
nothing it says is lost. ``strict_schema`` is what is sent as ``response_format`` in
``json_schema`` mode: OpenAI's strict mode wants every property required and
``additionalProperties: false`` on every object, and some servers refuse keywords such as
``minLength`` or ``minItems``; the strict variant drops those (they are still checked on
our side) and keeps the types, enums, nullability and ``$defs``. ``grammar_schema`` is what
is sent in ``json_object_schema`` mode (llama-cpp-python turns it into a grammar that the
answer cannot leave): the strict variant keeping what that grammar enforces
(``GRAMMAR_KEPT``), so that a model cannot answer ``"source_refs": []`` or an empty unit ID.
"""

from __future__ import annotations

from typing import Any

from streamer.framework.kinds.registry import ArtifactKind

# Validation keywords that strict structured-output servers may reject; checked by us.
UNSUPPORTED = frozenset(
    {
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
    }
)


def response_schema(kind: ArtifactKind[Any]) -> dict[str, Any]:
    """``{"records": [record]}`` with the record's ``$defs`` at the root."""
    record = dict(kind.model_record_schema())
    defs = record.pop("$defs", None)
    schema: dict[str, Any] = {
        "type": "object",
        "required": ["records"],
        "additionalProperties": False,
        "properties": {"records": {"type": "array", "items": record}},
    }
    if defs:
        schema["$defs"] = defs
    return schema


# What llama-cpp-python's grammar (``json_object_schema``) enforces of them: without them a
# model may answer ``"source_refs": []`` or ``"start_unit_id": ""``, which validation then
# rejects (and the lane is asked again, or fails).
GRAMMAR_KEPT = frozenset({"minItems", "minLength"})


def strict_schema(schema: Any, keep: frozenset[str] = frozenset()) -> Any:
    """The strict-mode variant of ``schema`` (a new value; ``schema`` is not changed),
    keeping the validation keywords of ``keep``."""
    if isinstance(schema, list):
        return [strict_schema(item, keep) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in UNSUPPORTED and key not in keep:
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: strict_schema(item, keep) for name, item in value.items()}
        else:
            out[key] = strict_schema(value, keep)
    if "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def grammar_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``json_object_schema`` variant of ``schema``: strict, keeping ``GRAMMAR_KEPT``,
    and a nullable string's ``minLength`` moved onto its string alternative (``anyOf``):
    llama-cpp-python's converter reads ``"type": ["string", "null"]`` as the bare types and
    would drop it."""
    converted: dict[str, Any] = _alternatives(strict_schema(schema, GRAMMAR_KEPT))
    return converted


def _alternatives(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_alternatives(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _alternatives(value) for key, value in schema.items()}
    types = out.get("type")
    if isinstance(types, list) and "minLength" in out:
        bound = out.pop("minLength")
        out.pop("type")
        out["anyOf"] = [
            {"type": each, "minLength": bound} if each == "string" else {"type": each}
            for each in types
        ]
    return out

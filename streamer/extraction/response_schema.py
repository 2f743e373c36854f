"""The response schema of a lane: ``{"records": [model-facing record]}``.

``response_schema(kind)`` is the full schema, from the kind's declaration
(``model_record_schema``); every answer is validated against the declaration itself, so
nothing it says is lost. ``strict_schema`` is what is sent as ``response_format`` in
``json_schema`` mode: OpenAI's strict mode wants every property required and
``additionalProperties: false`` on every object, and some servers refuse keywords such as
``minLength`` or ``minItems``; the strict variant drops those (they are still checked on
our side) and keeps the types, enums, nullability and ``$defs``. In ``json_object_schema``
mode (llama-cpp-python, whose grammar enforces it) it keeps ``minItems`` (``GRAMMAR_KEPT``).
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


# What llama-cpp-python's grammar (``json_object_schema``) enforces of them: without it a
# model may answer ``"source_refs": []``, which the support check then rejects.
GRAMMAR_KEPT = frozenset({"minItems"})


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

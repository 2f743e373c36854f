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

A request's schema is the chunk's own (``response_schema(kind, units)``): a cited unit ID is
one of the chunk's unit IDs (an ``enum``: strict servers and grammars keep it), the answer
holds at most one record per unit of the chunk, and a record at most ``CITED_RANGES``
ranges (``maxItems``, which the grammar keeps). A model that loops citing one unit again
and again (SmolLM2-135M did, to its ``max_tokens``) is stopped by the grammar; a record
citing a unit of another chunk cannot be written. The bounds are sent, never checked
against the declaration: a validated answer is one the declaration accepts, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamer.framework.kinds.records import SOURCE_REFERENCE_DEF
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


# The most ranges one record of a request may cite (a record of the declaration may cite
# more; normalization joins a character's records of every chunk)
CITED_RANGES = 8
REFERENCE_MEMBERS = ("start_unit_id", "end_unit_id")


def response_schema(kind: ArtifactKind[Any], units: Sequence[str] = ()) -> dict[str, Any]:
    """``{"records": [record]}`` with the record's ``$defs`` at the root; with ``units`` (a
    chunk's unit IDs, in order), bound to that chunk (the module's docstring)."""
    record = dict(kind.model_record_schema())
    defs = record.pop("$defs", None)
    records: dict[str, Any] = {"type": "array", "items": record}
    if units:
        records["maxItems"] = len(units)
        record["properties"] = _cited_ranges_bounded(record["properties"], kind.evidence_member)
        if defs and SOURCE_REFERENCE_DEF in defs:
            defs = {**defs, SOURCE_REFERENCE_DEF: _units_of(defs[SOURCE_REFERENCE_DEF], units)}
    schema: dict[str, Any] = {
        "type": "object",
        "required": ["records"],
        "additionalProperties": False,
        "properties": {"records": records},
    }
    if defs:
        schema["$defs"] = defs
    return schema


def _cited_ranges_bounded(properties: dict[str, Any], evidence: str | None) -> dict[str, Any]:
    member = None if evidence is None else properties.get(evidence)
    if evidence is None or not isinstance(member, dict) or member.get("type") != "array":
        return properties
    return {**properties, evidence: {**member, "maxItems": CITED_RANGES}}


def _units_of(reference: dict[str, Any], units: Sequence[str]) -> dict[str, Any]:
    """The source reference's schema with each unit ID one of ``units``."""
    members = dict(reference["properties"])
    for name in REFERENCE_MEMBERS:
        members[name] = {"type": "string", "enum": list(units)}
    return {**reference, "properties": members}


# What llama-cpp-python's grammar (``json_object_schema``) enforces of them: without them a
# model may answer ``"source_refs": []`` or ``"start_unit_id": ""``, which validation then
# rejects (and the lane is asked again, or fails).
GRAMMAR_KEPT = frozenset({"minItems", "maxItems", "minLength"})


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

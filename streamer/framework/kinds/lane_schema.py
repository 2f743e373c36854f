"""The JSON Schema (draft 2020-12) of a lane payload, built from its kind's record schema.

The envelope (``lane_id``, ``artifact_kind``, ``schema``, ``source``, ``records``) is the
same for every kind; a domain supplies only the schema of one record, whose members may
use the fragments below (``SOURCE_REFS`` and ``SOURCE_REF`` point into the envelope's
``$defs``). The shipped schema files are generated from this (``tests/test_schemas.py``).
"""

from __future__ import annotations

from typing import Any

from streamer.framework.kinds.registry import ArtifactKind

DRAFT = "https://json-schema.org/draft/2020-12/schema"
LANE_ID_PATTERN = "^[a-z0-9][a-z0-9_-]{0,63}$"
DIGEST_PATTERN = "^sha256:[0-9a-f]{64}$"

NON_EMPTY_STRING: dict[str, Any] = {"type": "string", "minLength": 1}
NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"], "minLength": 1}
SOURCE_REF: dict[str, Any] = {"$ref": "#/$defs/source_reference"}
SOURCE_REFS: dict[str, Any] = {"type": "array", "minItems": 1, "items": SOURCE_REF}

SOURCE_REFERENCE_SCHEMA: dict[str, Any] = {
    "description": "An inclusive range of source units in document order, cited by unit ID.",
    "type": "object",
    "required": ["start_unit_id", "end_unit_id"],
    "additionalProperties": False,
    "properties": {"start_unit_id": NON_EMPTY_STRING, "end_unit_id": NON_EMPTY_STRING},
}
SOURCE_SCHEMA: dict[str, Any] = {
    "description": "The source document: its ID and semantic digest.",
    "type": "object",
    "required": ["document_id", "semantic_digest"],
    "additionalProperties": False,
    "properties": {
        "document_id": NON_EMPTY_STRING,
        "semantic_digest": {"type": "string", "pattern": DIGEST_PATTERN},
    },
}


def record_schema(members: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly ``members``, all required."""
    return {
        "type": "object",
        "required": list(members),
        "additionalProperties": False,
        "properties": members,
    }


def lane_payload_schema(kind: ArtifactKind[Any], record: dict[str, Any]) -> dict[str, Any]:
    """The schema of a lane payload of ``kind`` whose records follow ``record``."""
    schema = kind.schema
    return {
        "$schema": DRAFT,
        "$id": schema.id,
        "title": schema.name,
        "description": f"Lane payload of artifact kind {kind.name} ({schema.version}): "
        f"{kind.question}",
        "type": "object",
        "required": ["lane_id", "artifact_kind", "schema", "source", "records"],
        "additionalProperties": False,
        "properties": {
            "lane_id": {"type": "string", "pattern": LANE_ID_PATTERN},
            "artifact_kind": {"const": kind.name},
            "schema": {"const": schema.to_json()},
            "source": {"$ref": "#/$defs/source"},
            "records": {"type": "array", "items": {"$ref": "#/$defs/record"}},
        },
        "$defs": {
            "record": record,
            "source": SOURCE_SCHEMA,
            "source_reference": SOURCE_REFERENCE_SCHEMA,
        },
    }

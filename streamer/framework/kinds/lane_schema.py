"""The JSON Schema (draft 2020-12) of a lane payload, built from its kind's record schema.

The envelope (``lane_id``, ``artifact_kind``, ``schema``, ``source``, ``records``) is the
same for every kind; the record schema comes from the kind's record declaration (its
source references point into the envelope's ``$defs``). The shipped schema files are
generated from this (``tests/test_schemas.py``).
"""

from __future__ import annotations

from typing import Any

from streamer.framework.kinds.records import SOURCE_REFERENCE_DEF, SOURCE_REFERENCE_SCHEMA
from streamer.framework.kinds.registry import ArtifactKind

DRAFT = "https://json-schema.org/draft/2020-12/schema"
LANE_ID_PATTERN = "^[a-z0-9][a-z0-9_-]{0,63}$"
DIGEST_PATTERN = "^sha256:[0-9a-f]{64}$"

NON_EMPTY_STRING: dict[str, Any] = {"type": "string", "minLength": 1}
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


def lane_payload_schema(kind: ArtifactKind[Any]) -> dict[str, Any]:
    """The schema of a lane payload of ``kind``, its records as the kind declares them."""
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
            "record": kind.record_schema(),
            "source": SOURCE_SCHEMA,
            SOURCE_REFERENCE_DEF: SOURCE_REFERENCE_SCHEMA,
        },
    }

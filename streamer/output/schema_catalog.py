"""The JSON Schemas (draft 2020-12) of every published document, shipped as package data:
``schemas/<schema id>.json``, each with ``$id`` = its schema ID.

The index, chunk-map and evidence-context schemas are written by hand; the lane payload
schemas are generated from the domain's record schemas (``tests/test_schemas.py`` keeps
the files in step with the code). A kind of a plugin ships no file: its lane payload schema
is generated from its record when asked for (``known_schema_ids``, ``lane_schema``,
``schema_document`` take the registry of the run).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import orjson

from streamer.framework.kinds.lane_schema import lane_payload_schema
from streamer.framework.kinds.registry import ArtifactKindRegistry

SUFFIX = ".json"


def _folder() -> Traversable:
    return resources.files("streamer.output") / "schemas"


@cache
def schema_ids() -> tuple[str, ...]:
    """Every shipped schema ID, sorted."""
    names = (entry.name for entry in _folder().iterdir() if entry.name.endswith(SUFFIX))
    return tuple(sorted(name.removesuffix(SUFFIX) for name in names))


def schema_bytes(schema_id: str) -> bytes | None:
    """The shipped file of ``schema_id``, or ``None`` when there is no such schema."""
    if schema_id not in schema_ids():
        return None
    return (_folder() / f"{schema_id}{SUFFIX}").read_bytes()


@cache
def load_schema(schema_id: str) -> dict[str, Any]:
    """The parsed schema of a known ``schema_id`` (``KeyError`` when unknown)."""
    data = schema_bytes(schema_id)
    if data is None:
        raise KeyError(schema_id)
    schema: dict[str, Any] = orjson.loads(data)
    return schema


def known_schema_ids(registry: ArtifactKindRegistry) -> tuple[str, ...]:
    """Every shipped schema ID and the lane payload schema ID of every kind of ``registry``,
    sorted."""
    return tuple(sorted({*schema_ids(), *(kind.schema.id for kind in registry)}))


def lane_schema(schema_id: str, registry: ArtifactKindRegistry) -> dict[str, Any] | None:
    """The schema of ``schema_id``: the shipped one, else the one generated from the kind
    of ``registry`` it identifies, else ``None``."""
    if schema_id in schema_ids():
        return load_schema(schema_id)
    for kind in registry:
        if kind.schema.id == schema_id:
            return lane_payload_schema(kind)
    return None


def schema_document(schema_id: str, registry: ArtifactKindRegistry) -> bytes | None:
    """The bytes ``streamer schema`` prints: the shipped file, or a plugin kind's generated
    schema written as the shipped files are (indented by two, one trailing newline)."""
    shipped = schema_bytes(schema_id)
    if shipped is not None:
        return shipped
    schema = lane_schema(schema_id, registry)
    if schema is None:
        return None
    return (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

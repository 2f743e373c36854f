"""The JSON Schemas (draft 2020-12) of every published document, shipped as package data:
``schemas/<schema id>.json``, each with ``$id`` = its schema ID.

The index, chunk-map and evidence-context schemas are written by hand; the lane payload
schemas are generated from the domain's record schemas (``tests/test_schemas.py`` keeps
the files in step with the code).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import orjson

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

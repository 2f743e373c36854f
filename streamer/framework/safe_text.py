"""Rendering identifiers (unit IDs, lane IDs, member names) safely inside one-line errors."""

from __future__ import annotations

import orjson

_LIMIT = 64


def quoted(identifier: str) -> str:
    """A JSON-quoted, single-line, length-capped rendering of an identifier.

    Used only for identifiers (which the contract allows errors to name), never for
    transcript text, speakers or record values.
    """
    shown = identifier if len(identifier) <= _LIMIT else identifier[:_LIMIT] + "..."
    return orjson.dumps(shown.encode("utf-8", "replace").decode("utf-8")).decode("utf-8")

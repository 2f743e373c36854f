"""Rendering identifiers (unit IDs, lane IDs, member names) safely inside one-line errors."""

from __future__ import annotations

import os
import re
import shlex

import orjson

_LIMIT = 64


def quoted(identifier: str) -> str:
    """A JSON-quoted, single-line, length-capped rendering of an identifier.

    Used only for identifiers (which the contract allows errors to name), never for
    transcript text, speakers or record values.
    """
    shown = identifier if len(identifier) <= _LIMIT else identifier[:_LIMIT] + "..."
    return orjson.dumps(shown.encode("utf-8", "replace").decode("utf-8")).decode("utf-8")


_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./~+@%:,=-]+\Z")


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path in an error line as the user gave it, never shortened: as is when it is
    plain, shell-quoted when it holds spaces or quotes (so that a hint can be pasted), and
    JSON-quoted when it holds control characters (the line stays one line)."""
    text = os.fsdecode(path)
    if _PLAIN_PATH.match(text):
        return text
    if text.isprintable():
        return shlex.quote(text)
    return orjson.dumps(text.encode("utf-8", "replace").decode("utf-8")).decode("utf-8")

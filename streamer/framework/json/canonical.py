"""Canonical JSON bytes and the semantic digest of a source document.

For the values streamer handles (strings, integers within +-2**53, objects whose member
names are ASCII, lists) orjson's output is RFC 8785 canonical JSON: raw UTF-8, only
``"``, ``\\`` and U+0000..U+001F escaped (as ``\\b \\t \\n \\f \\r`` or lowercase ``\\u00xx``),
no insignificant whitespace. ``OPT_SORT_KEYS`` then gives RFC 8785 member order, which
for ASCII names is code-unit order. ``tests/test_canonical_json.py`` checks this against
a reference implementation of RFC 8785.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

MAX_SAFE_INTEGER = 2**53 - 1
DIGEST_PREFIX = "sha256:"
_SORTED = orjson.OPT_SORT_KEYS


def canonical(value: Any) -> bytes:
    """RFC 8785 bytes of ``value`` (members sorted)."""
    return orjson.dumps(value, option=_SORTED)


def compact(value: Any) -> bytes:
    """Compact JSON bytes of ``value`` with members in insertion order."""
    return orjson.dumps(value)


class SemanticDigest:
    """Accumulates ``sha256`` over the canonical JSON of each unit, one ``\\n`` after each.

    A unit here is ``{unit_id, kind, text, metadata}``, metadata omitted when absent or
    empty. Lines are batched so that hashing costs one call per few thousand units.
    """

    __slots__ = ("_batch", "_hash")

    _BATCH = 2048

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self._batch: list[bytes] = []

    def add(self, unit: dict[str, Any]) -> None:
        """Add a validated unit (no ``source_ref``; no empty ``metadata``)."""
        batch = self._batch
        batch.append(orjson.dumps(unit, option=_SORTED))
        if len(batch) >= self._BATCH:
            self._flush()

    def add_canonical_lines(self, lines: bytes | memoryview) -> None:
        """Add validated units given as their canonical JSON, one line each with its
        ``\\n`` (``msgspec.json.Encoder(order="sorted").encode_lines``), in one call."""
        if lines:
            self._flush()
            self._hash.update(lines)

    def _flush(self) -> None:
        if self._batch:
            self._batch.append(b"")
            self._hash.update(b"\n".join(self._batch))
            self._batch = []

    def hexdigest(self) -> str:
        self._flush()
        return DIGEST_PREFIX + self._hash.hexdigest()

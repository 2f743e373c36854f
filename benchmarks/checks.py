"""The correctness checks beside the timings: byte-identical files, the same units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

MiB = 1 << 20


def wrong(check: str) -> bool:
    """A check that found a bug says so in capitals (``DIFFERS``, ``WRONG``, ``NO OUTPUT``)."""
    return any(len(word) > 2 and word.isalpha() and word.isupper() for word in check.split())


def same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as left, open(b, "rb") as right:
        while True:
            x, y = left.read(16 * MiB), right.read(16 * MiB)
            if x != y:
                return False
            if not x:
                return True


def check_same(path: Path | None, reference: Path | None, what: str) -> str:
    if reference is None or not reference.exists():
        return "no reference"
    if path is None or not path.exists():
        return "NO OUTPUT"
    return f"identical to {what}" if same_bytes(path, reference) else f"DIFFERS from {what}"


def plain_unit(unit: dict[str, Any]) -> tuple[str, str, str, tuple[tuple[str, Any], ...]]:
    """A unit as the selection sees it: ID, kind, text and the metadata members that have a
    value (a peer writes absent members as ``null``); no ``source_ref``."""
    metadata = unit.get("metadata") or {}
    members = tuple(sorted((k, v) for k, v in metadata.items() if v is not None))
    return unit["unit_id"], unit["kind"], unit["text"], members


def published_units(evidence: Path) -> list[tuple[str, str, str, tuple[tuple[str, Any], ...]]]:
    """The units of an evidence-context document, in document order."""
    document = orjson.loads(evidence.read_bytes())
    return [plain_unit(unit) for context in document["contexts"] for unit in context["units"]]


def check_units(lines: Path | None, evidence: Path | None) -> str:
    """``lines``: JSON Lines of covered units; the same units, in the same order, with the
    same kind, text and metadata as the units ``evidence`` published?"""
    if evidence is None or not evidence.exists():
        return "no reference"
    if lines is None or not lines.exists():
        return "NO OUTPUT"
    with open(lines, "rb") as stream:
        selected = [plain_unit(orjson.loads(line)) for line in stream if line.strip()]
    expected = published_units(evidence)
    if selected == expected:
        return f"same {len(selected)} units as evidence"
    return f"DIFFERENT units from evidence ({len(selected)}, expected {len(expected)})"

"""The one check that a JSON object has exactly the members it may have, with one message
style: ``{path}: unknown member "name"`` and ``{path}.name is required``. Member names
are quoted (capped, escaped), never values."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from streamer.framework.errors import InputError
from streamer.framework.safe_text import quoted


def check_members(
    value: dict[str, Any],
    path: str,
    *,
    required: Collection[str] = (),
    optional: Collection[str] = (),
    error: type[InputError] = InputError,
    prefix: str = "",
    hint: str | None = None,
) -> None:
    """Raise ``error`` on the first unknown member (sorted by name), then on the first
    missing required one (in ``required``'s order). ``prefix`` goes before the path
    (``lane npcs (npcs.json): ``)."""
    known = {*required, *optional}
    if not known.issuperset(value):
        name = sorted(set(value) - known)[0]
        raise error(f"{prefix}{path}: unknown member {quoted(name)}", hint=hint)
    for name in required:
        if name not in value:
            raise error(f"{prefix}{path}.{name} is required")

"""The one "exactly these members" check: every JSON object streamer reads with a fixed
set of members (records, references, lane payloads) is checked here, with one message
style: ``$.records[3]: unknown member "x"`` and ``$.records[3].caster is required``."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from streamer.framework.errors.safe_text import quoted

MemberError = Callable[[str, str], Exception]


def check_members(
    obj: dict[str, Any],
    allowed: Collection[str],
    required: Iterable[str],
    path: str,
    error: MemberError,
) -> None:
    """Raise ``error(path, rule)`` for the first unknown member (in sorted order), then for
    the first missing required member (in declaration order); the rule of an unknown
    member starts with ``:``. Member names are quoted; values are never shown."""
    unknown = sorted(set(obj).difference(allowed))
    if unknown:
        raise error(path, f": unknown member {quoted(unknown[0])}")
    for name in required:
        if name not in obj:
            raise error(f"{path}.{name}", "is required")

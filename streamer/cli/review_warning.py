"""The one stderr line that names a review's marks of records gone from the bundle
(``streamer review`` and ``streamer report`` print it)."""

from __future__ import annotations


def stale_line(stale: list[str] | tuple[str, ...], path: str) -> str:
    """The one stderr line naming a review's marks of records the bundle no longer has."""
    count = len(stale)
    return (
        f"streamer: warning: {path}: {count} reviewed record{'s are' if count > 1 else ' is'} "
        f"no longer in the bundle: {', '.join(stale)}"
    )

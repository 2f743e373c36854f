"""Whether a context is exactly the window-expanded union of its references."""

from __future__ import annotations

from collections.abc import Iterable


def is_window_union(
    spans: Iterable[tuple[int, int]], size: int, window: int, *, at_start: bool, at_end: bool
) -> bool:
    """Whether a context of ``size`` units is exactly the union of ``spans`` (positions in
    the context) expanded by ``window``, clipped where the context is at a document
    boundary (``at_start``, ``at_end``: known to be, or possibly)."""
    ordered = sorted(spans)
    if not ordered:
        return False
    first = ordered[0][0] - window
    if first > 0 or (first < 0 and not at_start):
        return False
    reach = first - 1
    for start, end in ordered:
        if start - window > reach + 1:
            return False
        reach = max(reach, end + window)
    return reach == size - 1 or (reach > size - 1 and at_end)

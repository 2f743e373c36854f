"""Whether a context is exactly the window-expanded union of its references."""

from __future__ import annotations

from collections.abc import Iterable

from streamer.framework.evidence.intervals import merged_runs


def is_window_union(
    spans: Iterable[tuple[int, int]], size: int, window: int, *, at_start: bool, at_end: bool
) -> bool:
    """Whether a context of ``size`` units is exactly the union of ``spans`` (positions in
    the context) expanded by ``window``, clipped where the context is at a document
    boundary (``at_start``, ``at_end``: known to be, or possibly)."""
    runs = merged_runs((start - window, end + window) for start, end in spans)
    if len(runs) != 1:
        return False
    ((first, last),) = runs
    return (first == 0 or (first < 0 and at_start)) and (
        last == size - 1 or (last > size - 1 and at_end)
    )

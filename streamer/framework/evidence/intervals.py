"""The union of inclusive integer intervals, as merged runs.

Ranges that overlap *or touch* (``[1, 3]`` and ``[4, 6]``) are merged, so the union is
always the smallest list of disjoint, non-adjacent runs covering the intervals. The one
merge of the package: the projector's streamed coverage, its check after the pass, and
the validation of a context's window all use it.
"""

from __future__ import annotations

from collections.abc import Iterable


def merged_runs(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of inclusive ``[start, end]`` intervals (each ``start <= end``): sorted,
    disjoint runs, no two touching. One sort and one linear pass."""
    runs: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if runs and start <= runs[-1][1] + 1:
            if end > runs[-1][1]:
                runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    return runs

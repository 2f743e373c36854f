"""A union of inclusive integer intervals, kept merged and sorted.

Ranges that overlap *or touch* (``[1, 3]`` and ``[4, 6]``) are merged, so the union is
always the smallest set of disjoint, non-adjacent intervals covering what was added.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sortedcontainers import SortedDict


class IntervalUnion:
    """Inclusive ``[start, end]`` integer intervals; ``add`` is O(log n + merged)."""

    def __init__(self) -> None:
        self._ends: SortedDict = SortedDict()  # start -> end

    def add(self, start: int, end: int) -> None:
        if start > end:
            raise ValueError("an interval's start must not come after its end")
        ends = self._ends
        # The first interval that could touch [start, end] is the one starting at or
        # before start, if it reaches start - 1; then every interval starting <= end + 1.
        index = ends.bisect_right(start) - 1
        if index >= 0:
            left_start = ends.keys()[index]
            if ends[left_start] >= start - 1:
                start = left_start
                end = max(end, ends[left_start])
            else:
                index += 1
        else:
            index = 0
        keys = ends.keys()
        while index < len(keys) and keys[index] <= end + 1:
            key = keys[index]
            end = max(end, ends[key])
            del ends[key]
        ends[start] = end

    def update(self, intervals: Iterable[tuple[int, int]]) -> None:
        """Add many intervals at once: one sort and one linear merge."""
        merged: list[list[int]] = []
        for start, end in sorted([*self._ends.items(), *intervals]):
            if start > end:
                raise ValueError("an interval's start must not come after its end")
            if merged and start <= merged[-1][1] + 1:
                if end > merged[-1][1]:
                    merged[-1][1] = end
            else:
                merged.append([start, end])
        self._ends = SortedDict((start, end) for start, end in merged)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._ends.items())

    def __len__(self) -> int:
        return len(self._ends)

    def covers(self, position: int) -> bool:
        index = self._ends.bisect_right(position) - 1
        return index >= 0 and bool(self._ends.peekitem(index)[1] >= position)

    def _check(self) -> None:
        """Assert the invariants: sorted, each start <= end, disjoint and not touching."""
        previous_end: int | None = None
        for start, end in self._ends.items():
            assert start <= end, (start, end)
            assert previous_end is None or start > previous_end + 1, (previous_end, start)
            previous_end = end

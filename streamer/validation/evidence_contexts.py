"""The rules of one context of the evidence document, once its units have streamed by: its
bounds are its first and last units, its references lie inside it (start before end, in
order, lanes sorted, allowlisted and published), it is apart from the previous context in
the source, and it is exactly the window-expanded union of its references."""

from __future__ import annotations

from typing import Any

from streamer.framework.errors.safe_text import quoted
from streamer.validation.chunk_map import Anchors
from streamer.validation.evidence_shape import Cited
from streamer.validation.evidence_units import Finished
from streamer.validation.skeleton import Skeleton
from streamer.validation.window_union import is_window_union


class ContextRules:
    """The context checks of ``EvidenceCheck`` (its state: the attributes below)."""

    anchors: Anchors | None
    lanes: dict[str, str]
    lines: list[str]
    cited: Cited
    previous_end: int | None
    top: Skeleton

    def _context_rules(self, finished: Finished) -> None:
        context, head = finished.context, finished.head
        path, lines = context.path, self.lines
        for end, unit_id, which in (
            ("start_unit_id", context.first_id, "first"),
            ("end_unit_id", context.last_id, "last"),
        ):
            if head[end] != unit_id:
                lines.append(
                    f"{path}.{end} {quoted(head[end])} is not the context's {which} unit: "
                    "units are out of order or missing"
                )
        spans = self._references(path, head["references"], context.index_of)
        anchors = self.anchors
        at_start = at_end = anchors is None  # unknown: the document bounds allow slack
        last = None if context.offset is None else context.offset + context.count - 1
        if context.offset is not None and anchors is not None and last is not None:
            at_start, at_end = context.offset == 0, last == anchors.last_position
            if self.previous_end is not None and context.offset <= self.previous_end + 1:
                lines.append(f"{path} overlaps or touches the previous context")
            self.previous_end = last
        window = self.top.member("window_units")
        if spans is not None and not is_window_union(
            spans, context.count, window, at_start=at_start, at_end=at_end
        ):
            lines.append(
                f"{path} is not the union of its references expanded by window_units {window}"
            )

    def _references(
        self, path: str, references: list[dict[str, Any]], index_of: dict[str, int]
    ) -> list[tuple[int, int]] | None:
        """Check a context's references; their spans (positions in the context), or
        ``None`` when one does not resolve in it."""
        allowlist = self.top.member("lanes")
        spans: list[tuple[int, int]] = []
        resolved = True
        lines = self.lines
        for r_index, reference in enumerate(references):
            where = f"{path}.references[{r_index}]"
            start = reference["source_ref"]["start_unit_id"]
            end = reference["source_ref"]["end_unit_id"]
            lane_ids = reference["lane_ids"]
            if lane_ids != sorted(lane_ids):
                lines.append(f"{where}.lane_ids is not sorted")
            for lane_id in lane_ids:
                if lane_id not in allowlist:
                    lines.append(f"{where}: lane {lane_id} is not in $.lanes")
                elif lane_id not in self.lanes:
                    lines.append(f"{where}: lane {lane_id} has no payload in the bundle")
                self.cited.setdefault((start, end, lane_id), where)
            outside = [unit_id for unit_id in (start, end) if unit_id not in index_of]
            if outside:
                lines.append(f"{where}: unit {quoted(outside[0])} is outside the context's bounds")
                resolved = False
                continue
            span = (index_of[start], index_of[end])
            if span[0] > span[1]:
                lines.append(f"{where}: reversed, {quoted(start)} comes after {quoted(end)}")
                resolved = False
            elif spans and span <= spans[-1]:
                lines.append(f"{where}: references are out of order or repeated")
            spans.append(span)
        return spans if resolved else None

    # -- the end ----------------------------------------------------------------------

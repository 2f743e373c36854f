"""The figures of a lane, from how its records matched: counts, precision, recall, F1 and
the share of matched records whose evidence overlaps the reference's.

precision = matched / published, recall = matched / expected (each 1.0 when its
denominator is 0: nothing published is nothing wrong, nothing expected is nothing
missed), F1 their harmonic mean (0.0 when both are 0), overlap = overlapping matched /
matched (``None`` when nothing matched). Published and expected count neither the
optional expected records nor the published records they set aside. JSON holds counts,
figures rounded to four places, and per record its position, ID and cited unit ranges:
never a member's value, never transcript text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamer.framework.source.reference import SourceReference


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


@dataclass(frozen=True)
class Counts:
    expected: int = 0
    published: int = 0
    matched: int = 0
    overlapping: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.expected + other.expected,
            self.published + other.published,
            self.matched + other.matched,
            self.overlapping + other.overlapping,
        )

    @property
    def precision(self) -> float:
        return _rate(self.matched, self.published)

    @property
    def recall(self) -> float:
        return _rate(self.matched, self.expected)

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    @property
    def overlap(self) -> float | None:
        return self.overlapping / self.matched if self.matched else None

    def to_json(self) -> dict[str, Any]:
        overlap = self.overlap
        return {
            "expected": self.expected,
            "published": self.published,
            "matched": self.matched,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "evidence_overlap": None if overlap is None else round(overlap, 4),
        }


def refs_json(refs: Iterable[SourceReference]) -> list[dict[str, str]]:
    return [ref.to_json() for ref in refs]


@dataclass(frozen=True)
class LaneScore:
    """One lane's figures and, per record, matched / missing / spurious (JSON-ready)."""

    lane_id: str
    artifact_kind: str
    counts: Counts
    matched: Sequence[dict[str, Any]] = ()
    missing: Sequence[dict[str, Any]] = ()
    spurious: Sequence[dict[str, Any]] = ()
    absent: bool = False  # the bundle has no lane of the reference lane's kind

    def to_json(self, records: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "lane_id": self.lane_id,
            "artifact_kind": self.artifact_kind,
            "in_bundle": not self.absent,
            **self.counts.to_json(),
        }
        if records:
            data["records"] = {
                "matched": list(self.matched),
                "missing": list(self.missing),
                "spurious": list(self.spurious),
            }
        return data


@dataclass(frozen=True)
class Row:
    """One line of the table: a session (campaign mode), a lane and its counts."""

    lane_id: str
    counts: Counts
    session: str | None = None


@dataclass(frozen=True)
class Table:
    rows: list[Row] = field(default_factory=list)

    def text(self) -> str:
        """The table as a person reads it, columns aligned, one line a row."""
        sessions = any(row.session is not None for row in self.rows)
        head = ["session"] if sessions else []
        head += ["lane", "expected", "published", "matched", "precision", "recall", "F1"]
        head.append("overlap")
        lines = [head]
        for row in self.rows:
            counts = row.counts
            overlap = counts.overlap
            cells = [row.session or ""] if sessions else []
            cells += [row.lane_id, str(counts.expected), str(counts.published)]
            cells += [str(counts.matched), f"{counts.precision:.2f}", f"{counts.recall:.2f}"]
            cells += [f"{counts.f1:.2f}", "-" if overlap is None else f"{overlap:.2f}"]
            lines.append(cells)
        text_columns = 2 if sessions else 1
        widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
        out = []
        for line in lines:
            cells = [
                cell.ljust(width) if i < text_columns else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(line, widths, strict=True))
            ]
            out.append("  ".join(cells).rstrip())
        return "\n".join(out) + "\n"

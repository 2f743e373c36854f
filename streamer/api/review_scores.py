"""``streamer eval BUNDLE REVIEW``: the game master's review as a reference of its own.

The review is a labelled set of the table's own: an accepted record is a true positive, a
rejected one a known false positive, and a record the review does not mark is unknown
(neither). Per lane (and in total), of the bundle's published records with an ID:

- ``published``, ``accepted``, ``rejected``, ``unreviewed`` (``published`` less the two);
- ``precision``: accepted / (accepted + rejected), the precision over the reviewed
  records (``null`` when none is reviewed);
- ``reviewed``: (accepted + rejected) / published, the share the game master has judged
  (``null`` for an empty lane).

No recall: a review names no record the bundle missed. ``stale`` lists the review's IDs no
longer in the bundle (after a rerun); they count in no lane.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from streamer.api.config import default_registry
from streamer.api.reviews import bundle_record_ids, load_review, require_valid
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.output.bundle_documents import INDEX_FILE
from streamer.validation.review import ARTIFACT_KIND, Review

TOTAL = "(all)"


def is_review(path: str | os.PathLike[str]) -> bool:
    """Whether the file at ``path`` is a review (its ``artifact_kind``), not a reference."""
    try:
        document = orjson.loads(Path(path).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(document, dict) and document.get("artifact_kind") == ARTIFACT_KIND


@dataclass(frozen=True)
class ReviewRow:
    lane_id: str
    published: int
    accepted: int
    rejected: int

    @property
    def unreviewed(self) -> int:
        return self.published - self.accepted - self.rejected

    def to_json(self) -> dict[str, Any]:
        judged = self.accepted + self.rejected
        return {
            "lane_id": self.lane_id,
            "published": self.published,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "unreviewed": self.unreviewed,
            "precision": None if not judged else round(self.accepted / judged, 4),
            "reviewed": None if not self.published else round(judged / self.published, 4),
        }


@dataclass(frozen=True)
class ReviewScores:
    document_id: str
    lanes: tuple[ReviewRow, ...]
    stale: tuple[str, ...]

    def total(self) -> ReviewRow:
        return ReviewRow(
            TOTAL,
            sum(row.published for row in self.lanes),
            sum(row.accepted for row in self.lanes),
            sum(row.rejected for row in self.lanes),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "document_id": self.document_id,
            "reference": "review",
            "lanes": [row.to_json() for row in (*self.lanes, self.total())],
            "stale": list(self.stale),
        }

    def table(self) -> str:
        head = ("lane", "published", "accepted", "rejected", "unreviewed", "precision", "reviewed")
        lines: list[tuple[str, ...]] = [head]
        for row in (*self.lanes, self.total()):
            shown = row.to_json()
            lines.append(
                tuple(
                    "-" if shown[key] is None else str(shown[key])
                    for key in ("lane_id", *(name for name in head[1:]))
                )
            )
        widths = [max(len(line[k]) for line in lines) for k in range(len(head))]
        text = "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            for line in lines
        )
        stale = f"\nstale (no longer in the bundle): {', '.join(self.stale)}" if self.stale else ""
        return text + stale + "\n"


def _lane_rows(folder: Path, review: Review, registry: ArtifactKindRegistry) -> list[ReviewRow]:
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    rows = []
    for descriptor in index["lanes"]:
        name = descriptor["artifact_kind"]
        member = (
            registry.get(name, where=descriptor["file"]).id_member if name in registry else None
        )
        if member is None:
            continue
        records = orjson.loads((folder / descriptor["file"]).read_bytes())["records"]
        ids = [str(record[member]) for record in records if member in record]
        rows.append(
            ReviewRow(
                descriptor["lane_id"],
                len(ids),
                sum(review.accepted(i) for i in ids),
                sum(review.rejected(i) for i in ids),
            )
        )
    return rows


def review_scores(
    bundle_dir: str | os.PathLike[str],
    review_file: str | os.PathLike[str],
    registry: ArtifactKindRegistry | None = None,
) -> ReviewScores:
    """The scores of the bundle in ``bundle_dir`` against the review ``review_file``."""
    folder = Path(bundle_dir)
    registry = registry or default_registry()
    require_valid(folder, registry)
    review = load_review(folder, review_file)
    assert review is not None  # a given file is read or refused
    rows = _lane_rows(folder, review, registry)
    stale = tuple(review.stale(bundle_record_ids(folder, registry)))
    return ReviewScores(review.document_id, tuple(rows), stale)

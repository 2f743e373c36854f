"""``streamer review``: the game master's word on a bundle's records (``review.json``), and
the review the report, the campaign registry and the vault read (``load_review``).

The review of ``out/session/`` is ``out/session.review.json``, beside the bundle
(``review_path``). ``streamer review`` marks records accepted or rejected, with a note or
without, keeping the marks already in the file; an ID that is in no lane of the bundle is
refused (a typo must not become a mark); a mark whose record is gone after a rerun is kept
and reported (``ReviewResult.stale``), never dropped silently.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from streamer.api.config import default_registry
from streamer.api.validation import validate_bundle
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.output.bundle_documents import INDEX_FILE
from streamer.output.publication import atomic_file
from streamer.validation.review import (
    ACCEPTED,
    REJECTED,
    Mark,
    Review,
    check_reviews_bundle,
    read_review,
    review_bytes,
    review_path,
)

__all__ = [
    "ReviewResult",
    "bundle_record_ids",
    "load_review",
    "page_review",
    "review",
    "review_path",
]


@dataclass(frozen=True)
class ReviewResult:
    """What ``review`` wrote: the file, its counts, and its marks of records that are no
    longer in the bundle."""

    path: Path
    accepted: int
    rejected: int
    stale: tuple[str, ...]

    def receipt(self) -> dict[str, object]:
        return {
            "status": "reviewed",
            "review": str(self.path),
            "accepted": self.accepted,
            "rejected": self.rejected,
            "stale": list(self.stale),
        }


def require_valid(folder: Path, registry: ArtifactKindRegistry) -> None:
    """Raise ``InputError`` naming the first problem when the bundle in ``folder`` is not
    valid (as ``validate_bundle`` checks it)."""
    checked = validate_bundle(folder, registry)
    if not checked.valid:
        raise InputError(
            f"bundle {shown_path(folder)} is not valid: {checked.problems[0]}",
            hint=f"'streamer validate {shown_path(folder)}' lists every problem",
        )


def _index_source(folder: Path) -> dict[str, Any]:
    source: dict[str, Any] = orjson.loads((folder / INDEX_FILE).read_bytes())["source"]
    return source


def bundle_record_ids(folder: str | os.PathLike[str], registry: ArtifactKindRegistry) -> set[str]:
    """The record IDs of every lane of the (valid) bundle in ``folder`` whose kind has an
    ID member."""
    folder = Path(folder)
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    found: set[str] = set()
    for descriptor in index["lanes"]:
        name = descriptor["artifact_kind"]
        if name not in registry:
            continue
        member = registry.get(name, where=descriptor["file"]).id_member
        if member is None:
            continue
        records = orjson.loads((folder / descriptor["file"]).read_bytes())["records"]
        found.update(str(record[member]) for record in records if member in record)
    return found


def load_review(
    bundle_dir: str | os.PathLike[str], review_file: str | os.PathLike[str] | None = None
) -> Review | None:
    """The review of the bundle in ``bundle_dir``: ``review_file`` when given (it must
    exist), else ``<bundle>.review.json`` beside the bundle when it is there, else ``None``.
    A review of another bundle (document ID or semantic digest) raises ``InputError``.

    The campaign registry and the vault leave out every record ``review.rejected(id)``
    and mark those ``review.unreviewed(id)`` when they want canon."""
    folder = Path(bundle_dir)
    path = review_path(folder) if review_file is None else Path(review_file)
    if review_file is None and not path.is_file():
        return None
    option = "review" if review_file is None else "--review"
    loaded = read_review(path, option)
    where = f"{option} {shown_path(path)}"
    check_reviews_bundle(loaded, _index_source(folder), where, shown_path(folder))
    return loaded


def _marks(
    old: dict[str, Mark],
    accept: Sequence[str],
    reject: Sequence[str],
    notes: Sequence[tuple[str, str]],
) -> dict[str, Mark]:
    both = sorted(set(accept) & set(reject))
    if both:
        raise ConfigurationError(f"--accept and --reject both name {quoted(both[0])}")
    marks = dict(old)
    for record_id in accept:
        marks[record_id] = Mark(ACCEPTED, None if record_id not in old else old[record_id].note)
    for record_id in reject:
        marks[record_id] = Mark(REJECTED, None if record_id not in old else old[record_id].note)
    for record_id, text in notes:
        if record_id not in marks:
            raise ConfigurationError(
                f"--note {quoted(record_id)}: the record is neither accepted nor rejected",
                hint="give --accept ID or --reject ID with it",
            )
        marks[record_id] = Mark(marks[record_id].verdict, text or None)
    return marks


def _check_known(named: Iterable[tuple[str, str]], known: set[str], folder: Path) -> None:
    for option, record_id in named:
        if record_id not in known:
            raise ConfigurationError(
                f"{option} {quoted(record_id)}: no record of bundle {shown_path(folder)} "
                "has this ID",
                hint="the IDs are in the page's ID column, or the lane files' records",
            )


def review(
    bundle_dir: str | os.PathLike[str],
    *,
    accept: Sequence[str] = (),
    reject: Sequence[str] = (),
    notes: Sequence[tuple[str, str]] = (),
    registry: ArtifactKindRegistry | None = None,
) -> ReviewResult:
    """Mark records of the bundle in ``bundle_dir`` accepted or rejected (``notes``: an
    (ID, text) note on a record the review marks), keeping the review's other marks, and
    publish ``<bundle>.review.json`` atomically. An ID in no lane of the bundle raises
    ``ConfigurationError``; an invalid bundle, or a review of another bundle, ``InputError``."""
    folder = Path(bundle_dir)
    registry = registry or default_registry()
    require_valid(folder, registry)
    known = bundle_record_ids(folder, registry)
    named = [
        *(("--accept", i) for i in accept),
        *(("--reject", i) for i in reject),
        *(("--note", i) for i, _ in notes),
    ]
    _check_known(named, known, folder)
    source = _index_source(folder)
    old = load_review(folder)
    marks = _marks(dict(old.marks) if old else {}, accept, reject, notes)
    result = Review(source["document_id"], source["semantic_digest"], marks)
    path = review_path(folder)
    with atomic_file(path) as out:
        out.write(review_bytes(result))
    verdicts = [mark.verdict for mark in marks.values()]
    return ReviewResult(
        path, verdicts.count(ACCEPTED), verdicts.count(REJECTED), tuple(result.stale(known))
    )


def page_review(
    bundle_dir: str | os.PathLike[str],
    review_file: str | os.PathLike[str] | None,
    registry: ArtifactKindRegistry,
    *,
    canon: bool = False,
) -> dict[str, Any] | None:
    """The review as the session page holds it (``streamer.report.writer``'s ``review``):
    whether unreviewed records are marked (``canon``), the marks, and the reviewed IDs no
    longer in the (valid) bundle; ``None`` without a review or ``canon`` (the page starts
    with no marks). The page does not depend on the bundle folder's name: its download is
    named for the bundle's document ID."""
    folder = Path(bundle_dir)
    loaded = load_review(folder, review_file)
    if loaded is None and not canon:
        return None
    marks = {} if loaded is None else loaded.to_json()["records"]
    stale = [] if loaded is None else loaded.stale(bundle_record_ids(folder, registry))
    return {
        "canon": canon,
        "marks": marks,
        "stale": stale,
    }

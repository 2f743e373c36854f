"""The game master's review of a bundle (``notarius.review``): per record ID, accepted or
rejected and an optional note.

The file lives beside the bundle folder: ``out/session.review.json`` for the bundle
``out/session/`` (``review_path``), the name the session page gives its download. It names
the bundle it reviews (index.json's source: document ID and semantic digest); a review
of another bundle is refused (``load_review``). ``review_bytes`` writes it canonically,
as the page's script does: members in the schema's order, records sorted by ID (by UTF-16
code units, as a browser sorts strings), ``JSON.stringify(value, null, 2)``'s layout and
escapes, one trailing newline; the same marks give the same bytes.

Errors name the file and the JSON path, never a note's text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.validation.schema_rules import schema_problems

REVIEW_SCHEMA_ID = "notarius.review"
ARTIFACT_KIND = "review/records"
SCHEMA = {"id": REVIEW_SCHEMA_ID, "name": "notarius_review_v1", "version": "v1"}
SUFFIX = ".review.json"
ACCEPTED: Literal["accepted"] = "accepted"
REJECTED: Literal["rejected"] = "rejected"
Verdict = Literal["accepted", "rejected"]


@dataclass(frozen=True)
class Mark:
    """The game master's word on one record."""

    verdict: Verdict
    note: str | None = None

    def to_json(self) -> dict[str, str]:
        shown: dict[str, str] = {"verdict": self.verdict}
        if self.note is not None:
            shown["note"] = self.note
        return shown


def _utf16(record_id: str) -> bytes:
    return record_id.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True)
class Review:
    """A review of the bundle whose source is ``document_id`` / ``semantic_digest``."""

    document_id: str
    semantic_digest: str
    marks: Mapping[str, Mark] = field(default_factory=dict)

    def accepted(self, record_id: str) -> bool:
        mark = self.marks.get(record_id)
        return mark is not None and mark.verdict == ACCEPTED

    def rejected(self, record_id: str) -> bool:
        mark = self.marks.get(record_id)
        return mark is not None and mark.verdict == REJECTED

    def rejected_ids(self) -> frozenset[str]:
        return frozenset(key for key, mark in self.marks.items() if mark.verdict == REJECTED)

    def unreviewed(self, record_id: str) -> bool:
        return record_id not in self.marks

    def note(self, record_id: str) -> str | None:
        mark = self.marks.get(record_id)
        return None if mark is None else mark.note

    def stale(self, record_ids: Iterable[str]) -> list[str]:
        """The reviewed IDs that are not among ``record_ids`` (the bundle's, after a rerun),
        in the file's order."""
        present = set(record_ids)
        return [record_id for record_id in self.ordered() if record_id not in present]

    def ordered(self) -> list[str]:
        return sorted(self.marks, key=_utf16)

    def to_json(self) -> dict[str, Any]:
        return {
            "artifact_kind": ARTIFACT_KIND,
            "schema": dict(SCHEMA),
            "bundle": {"document_id": self.document_id, "semantic_digest": self.semantic_digest},
            "records": {record_id: self.marks[record_id].to_json() for record_id in self.ordered()},
        }


def review_bytes(review: Review) -> bytes:
    """The canonical file of ``review`` (what ``streamer review`` and the page write)."""
    return (json.dumps(review.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def review_path(bundle_dir: str | os.PathLike[str]) -> Path:
    """Where the review of the bundle in ``bundle_dir`` lives: ``<bundle>.review.json``
    beside the bundle folder."""
    folder = Path(os.path.normpath(os.fspath(bundle_dir)))
    return folder.with_name(folder.name + SUFFIX)


def parse_review(document: Any, where: str) -> Review:
    """The review in ``document`` (parsed JSON), checked against its schema; ``where``
    names the file in the error."""
    problems = schema_problems(document, REVIEW_SCHEMA_ID)
    if problems:
        count = len(problems)
        raise InputError(
            f"review {where} is not valid ({count} problem{'s' if count > 1 else ''}): "
            f"{problems[0]}",
            hint="streamer schema notarius.review",
        )
    marks = {
        record_id: Mark(mark["verdict"], mark.get("note"))
        for record_id, mark in document["records"].items()
    }
    bundle = document["bundle"]
    return Review(bundle["document_id"], bundle["semantic_digest"], marks)


def read_review(path: str | os.PathLike[str], option: str = "review") -> Review:
    """The review file at ``path``; ``option`` starts the error lines (``--review``)."""
    where = f"{option} {shown_path(path)}"
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigurationError(f"{where} does not exist") from None
    except IsADirectoryError:
        raise ConfigurationError(f"{where} is a folder, not a file") from None
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise InputError(
            f"{where} is not JSON", hint="give a review.json that streamer review wrote"
        ) from None
    return parse_review(document, shown_path(path))


def check_reviews_bundle(
    review: Review, source: Mapping[str, Any], where: str, bundle: str
) -> None:
    """Refuse ``review`` unless it names the bundle whose index source is ``source``."""
    if (review.document_id, review.semantic_digest) != (
        source["document_id"],
        source["semantic_digest"],
    ):
        raise InputError(
            f"{where} reviews another bundle than {bundle} (its document ID or semantic "
            "digest differs)",
            hint="give the review of this bundle, or start a new one",
        )

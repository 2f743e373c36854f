"""``streamer eval OUT_DIR REFERENCES_DIR``: a ``streamer batch`` output folder against a
folder of references, with totals.

Each ``*.json`` of the references folder is one session's reference, found by the
document ID its ``source`` names. That session's bundle is ``OUT_DIR/ID/`` and its source
document the one ``streamer run`` kept, ``OUT_DIR/ID.work/source.jsonl``. A referenced
session the batch did not publish (failed, or not in ``batch.jsonl``) scores every
expected record missing; a session without a reference is not scored (``unlabelled``).
The totals add each lane's counts over the sessions (lanes by artifact kind, named by the
first session's lane ID), and their figures come from the sums.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from streamer.api.batch_summary import SUMMARY_FILE as BATCH_SUMMARY
from streamer.api.config import default_registry
from streamer.api.evaluation import (
    DEFAULT_TOLERANCE,
    EvaluationResult,
    PathLike,
    canon,
    check_tolerance,
    read_bundle,
    read_glossary,
    score,
    work_source,
)
from streamer.evaluation.lanes import all_missing
from streamer.evaluation.reference import Reference, read_reference
from streamer.evaluation.scores import Counts, LaneScore, Row, Table
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.registry import ArtifactKindRegistry


class _Line(msgspec.Struct):
    document_id: str
    status: str


@dataclass(frozen=True)
class SessionScore:
    document_id: str
    status: str  # ok / skipped (published by the batch), failed, absent (not in the batch)
    result: EvaluationResult


@dataclass(frozen=True)
class CampaignEvaluation:
    tolerance: int
    sessions: list[SessionScore]
    unlabelled: list[str]
    totals: list[tuple[str, str, Counts]] = field(default_factory=list)  # lane, kind, counts

    def rows(self) -> list[Row]:
        return [Row(lane, counts) for lane, _, counts in self.totals]

    def table(self) -> Table:
        rows = [
            Row(lane.lane_id, lane.counts, session.document_id)
            for session in self.sessions
            for lane in session.result.lanes
        ]
        return Table(rows + [Row(lane, counts, "(total)") for lane, _, counts in self.totals])

    def to_json(self, records: bool = True) -> dict[str, Any]:
        return {
            "tolerance": self.tolerance,
            "sessions": [
                {
                    "document_id": session.document_id,
                    "status": session.status,
                    "lanes": [lane.to_json(records) for lane in session.result.lanes],
                }
                for session in self.sessions
            ],
            "unlabelled": self.unlabelled,
            "totals": [
                {"lane_id": lane, "artifact_kind": kind, **counts.to_json()}
                for lane, kind, counts in self.totals
            ],
        }


def _statuses(folder: Path) -> dict[str, str]:
    where = f"batch output folder {shown_path(folder)}"
    try:
        data = (folder / BATCH_SUMMARY).read_bytes()
    except FileNotFoundError:
        raise ConfigurationError(
            f"{where}: no {BATCH_SUMMARY} in it",
            hint="give the --output-dir of a streamer batch run",
        ) from None
    statuses = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        if raw.strip():
            try:
                line = msgspec.json.decode(raw, type=_Line)
            except (msgspec.DecodeError, msgspec.ValidationError):
                raise InputError(
                    f"{where}: {BATCH_SUMMARY} line {number} is not a batch line"
                ) from None
            statuses[line.document_id] = line.status
    return statuses


def _references(folder: Path, registry: ArtifactKindRegistry) -> dict[str, tuple[Path, Reference]]:
    if not folder.is_dir():
        raise ConfigurationError(f"references folder {shown_path(folder)} is not a folder")
    found: dict[str, tuple[Path, Reference]] = {}
    for path in sorted(folder.glob("*.json")):
        reference = read_reference(path, registry)
        document = reference.source.document_id
        if document in found:
            raise InputError(
                f"reference {shown_path(path)} names the same document as "
                f"{shown_path(found[document][0])} ({quoted(document)})"
            )
        found[document] = (path, reference)
    return found


def evaluate_campaign(
    folder: PathLike,
    references: PathLike,
    *,
    glossary: PathLike | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
    registry: ArtifactKindRegistry | None = None,
) -> CampaignEvaluation:
    """Score every session of the batch output ``folder`` that ``references`` holds a
    reference of, in document ID order, and the totals per lane."""
    registry = registry or default_registry()
    check_tolerance(tolerance)
    root = Path(folder)
    statuses = _statuses(root)
    labelled = _references(Path(references), registry)
    terms = read_glossary(glossary, registry)
    sessions = []
    for document, (path, reference) in sorted(labelled.items()):
        status = statuses.get(document, "absent")
        if status in ("ok", "skipped"):
            bundle = read_bundle(root / document, registry)
            names = canon(terms, document)
            result = score(bundle, reference, work_source(root / document), path, names, tolerance)
        else:  # nothing published: every expected record is missing
            result = EvaluationResult(document, tolerance, all_missing(reference))
        sessions.append(SessionScore(document, status, result))
    unlabelled = sorted(set(statuses) - set(labelled))
    return CampaignEvaluation(tolerance, sessions, unlabelled, _totals(sessions))


def _totals(sessions: list[SessionScore]) -> list[tuple[str, str, Counts]]:
    names: dict[str, str] = {}
    sums: dict[str, Counts] = {}
    for session in sessions:
        for lane in session.result.lanes:
            names.setdefault(lane.artifact_kind, lane.lane_id)
            sums[lane.artifact_kind] = sums.get(lane.artifact_kind, Counts()) + lane.counts
    return [(names[kind], kind, sums[kind]) for kind in sorted(sums, key=lambda k: names[k])]


__all__ = ["CampaignEvaluation", "LaneScore", "SessionScore", "evaluate_campaign"]

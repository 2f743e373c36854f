"""The stages of ``streamer run``, declared once: import -> extract -> normalize -> bundle
-> report.

Each stage names its inputs (files or folders, compared by digest), its configuration
(a JSON value, compared by digest), its outputs in the work folder, the function that
calls the stage's API function and returns its typed result (``ImportResult``,
``ExtractResult``, ``NormalizeResult``, ``BundleResult``, ``ReportSummary``), and the
counts its record and the run's receipt keep of that result (the only dicts).
``streamer.api.runs`` walks the list.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from streamer import __version__
from streamer.api.bundles import BundleResult, bundle
from streamer.api.extraction import ExtractResult, LaneFailure, extract
from streamer.api.lanes import Warn
from streamer.api.normalization import REJECTIONS_FILE, NormalizeResult, normalize
from streamer.api.page_notes import notes_of
from streamer.api.reports import report
from streamer.api.run_options import Progress
from streamer.api.transcripts import ImportResult, import_transcript
from streamer.api.work_folder import WorkFolder, file_digest, value_digest
from streamer.configuration import Configuration
from streamer.framework.source.accepted import AcceptedSource, UnitIndex
from streamer.framework.source.envelope import DocumentIdentity
from streamer.importers.formats import ImportOptions
from streamer.output.publication import PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE
from streamer.report import ReportSummary, RunNotes

IMPORT = "import"
EXTRACT = "extract"
SOURCE = "source.jsonl"
CANDIDATES = "candidates"
CACHE = "cache"
LANES = "lanes"
BUNDLE = "bundle"
REPORT = "report.html"

R = TypeVar("R")


@dataclass
class RunPlan:
    """Everything one run's stages need: the resolved options and the work folder."""

    config_path: Path | None
    """The configuration file (``None``: the default configuration, ``config_text``)."""
    config: Configuration
    transcript: Path
    format_name: str
    document_id: str
    lanes: tuple[str, ...]
    """The lanes of the run: the ``--lane`` selection, else every configured lane."""
    work: WorkFolder
    warn: Warn
    progress: Progress | None = None
    chunk_progress: Callable[[str, int, int], None] | None = None
    """``(lane_id, chunks done, chunks)`` as extraction answers (a model lane's chunks)."""
    import_options: ImportOptions = field(default_factory=ImportOptions)
    config_text: str = ""
    jobs: int = 1
    """The processes that import the transcript (a format that reads on several) and
    answer the rules lanes' chunks (``--jobs``: same bytes)."""
    failed: set[str] = field(default_factory=set)
    """The lanes that failed in an earlier stage of this run (each said once, as a failure)."""
    _config_digest: str | None = field(default=None, repr=False)
    accepted: DocumentIdentity | None = None
    """The identity of ``source.jsonl`` as the import stage accepted it (``accept``)."""
    index: UnitIndex | None = None
    """Its blocks and unit IDs, once extraction has read them (in this run): normalize
    then reads only the blocks its candidates cite, and leaves the positions it found for
    bundle (``UnitIndex.positions``)."""

    def path(self, name: str) -> Path:
        return self.work.path(name)

    def accept(self, imported: ImportResult) -> None:
        """The import stage completed (in this run, or in the one whose record matched):
        ``source.jsonl`` holds the bytes it accepted."""
        self.accepted = DocumentIdentity(
            self.document_id, imported.semantic_digest, imported.unit_count
        )
        if self.index is not None:
            self.index.close()
        self.index = UnitIndex()

    def source(self) -> AcceptedSource | Path:
        """What the stages after the import read: the source document it accepted, read
        without validating or digesting it again (the run checked the file's digest
        against the import's record); else the file, read as its command reads it."""
        if self.accepted is None:
            return self.path(SOURCE)
        return AcceptedSource(self.path(SOURCE), self.accepted, self.index)

    @property
    def config_digest(self) -> str:
        """The configuration file's digest: a stage configured by it reruns when any of it
        changes (extraction then answers from its cache)."""
        if self._config_digest is None:
            self._config_digest = (
                value_digest(self.config_text)
                if self.config_path is None
                else file_digest(self.config_path)
            )
        return self._config_digest

    @property
    def semantic_digest(self) -> str:
        """The semantic digest of the source document the import accepted."""
        assert self.accepted is not None, "the import stage comes first"
        return self.accepted.semantic_digest


def _no_failures(result: Any) -> tuple[LaneFailure, ...]:
    return ()


@dataclass(frozen=True)
class Stage(Generic[R]):
    """One step of a run: what it reads, how it is configured, what it writes; ``run``
    gives its typed result, ``counts`` what its record and the run's receipt keep of it;
    ``restore`` makes the result again from a record's counts, for a stage whose result
    the run needs when it is skipped (the import's document, the bundle's files);
    ``failures``: the lanes that failed in it (then it keeps no record)."""

    name: str
    inputs: Callable[[RunPlan], Mapping[str, Path]]
    configuration: Callable[[RunPlan], Any]
    outputs: tuple[str, ...]
    run: Callable[[RunPlan], R]
    counts: Callable[[R], dict[str, Any]]
    restore: Callable[[RunPlan, Mapping[str, Any]], R] | None = None
    failures: Callable[[R], tuple[LaneFailure, ...]] = _no_failures


def _configured(plan: RunPlan) -> dict[str, Any]:
    return {"streamer": __version__, "config": plan.config_digest, "lanes": list(plan.lanes)}


def _glossary(plan: RunPlan) -> dict[str, Path]:
    """The configured glossary (``pipeline.normalization.glossary``), when there is one."""
    path = plan.config.normalization.glossary
    return {} if path is None else {"glossary": path}


# -- import ---------------------------------------------------------------------------------


def _import_inputs(plan: RunPlan) -> Mapping[str, Path]:
    return {"transcript": plan.transcript}


def _import_configuration(plan: RunPlan) -> Any:
    configuration: dict[str, Any] = {
        "streamer": __version__,
        "format": plan.format_name,
        "document_id": plan.document_id,
    }
    options = plan.import_options.given()
    if options:  # a run without them keeps the digest it always had
        configuration["options"] = options
    return configuration


def _import(plan: RunPlan) -> ImportResult:
    options = plan.import_options
    result = import_transcript(
        plan.format_name,
        plan.transcript,
        document_id=plan.document_id,
        output=plan.path(SOURCE),
        unit=options.unit,
        speaker_prefix=options.speaker_prefix,
        dedupe_rolling=options.dedupe_rolling,
        speaker_carry=options.speaker_carry,
        progress=plan.progress,
        jobs=plan.jobs,
    )
    os.chmod(plan.path(SOURCE), PRIVATE_FILE_MODE)  # the transcript's copy: the owner's alone
    return result


def _import_counts(result: ImportResult) -> dict[str, Any]:
    return {"units": result.unit_count, "semantic_digest": result.semantic_digest}


def _imported(plan: RunPlan, counts: Mapping[str, Any]) -> ImportResult:
    return ImportResult(plan.document_id, str(counts["semantic_digest"]), int(counts["units"]))


# -- extract --------------------------------------------------------------------------------


def _extract_inputs(plan: RunPlan) -> Mapping[str, Path]:
    # the glossary's party gives the rules engine its casters
    return {"source": plan.path(SOURCE), **_glossary(plan)}


def extracted_lanes(config: Configuration, lanes: Sequence[str]) -> list[str]:
    """The lanes of the run that extraction answers (a party roster, say, is never
    extracted: its records come from the glossary)."""
    return [lane for lane in lanes if config.lane(lane).kind.extraction is not None]


def _extract(plan: RunPlan) -> ExtractResult:
    # The stage owns the folder: a lane of an earlier run (or one that fails now) leaves no
    # stale candidates behind. The answers stay in the cache beside it.
    candidates = plan.path(CANDIDATES)
    shutil.rmtree(candidates)
    os.mkdir(candidates, PRIVATE_DIRECTORY_MODE)
    lanes = extracted_lanes(plan.config, plan.lanes)
    if not lanes:
        return ExtractResult(plan.document_id, plan.semantic_digest, 0, (), ())
    return extract(
        plan.config,
        plan.source(),
        candidates,
        lanes=lanes,
        cache_dir=plan.path(CACHE),
        progress=plan.chunk_progress,
        jobs=plan.jobs,
    )


def _extract_counts(result: ExtractResult) -> dict[str, Any]:
    return {
        "chunks": result.chunk_count,
        "lanes": list(result.lanes),
        "failed_lanes": list(result.failed_lanes),
    }


def _extract_failures(result: ExtractResult) -> tuple[LaneFailure, ...]:
    return result.lane_failures


# -- normalize ------------------------------------------------------------------------------


def _unless_failed(plan: RunPlan) -> Warn:
    """``plan.warn`` without the lanes that already failed: a warning listing lanes
    (``...: a, b``) that a later stage finds without output says only the others, or
    nothing when they all failed (their failure line says it)."""

    def warn(message: str) -> None:
        head, _, listed = message.rpartition(": ")
        lanes = listed.split(", ")
        if not head or not plan.failed.intersection(lanes):
            plan.warn(message)
            return
        left = [lane for lane in lanes if lane not in plan.failed]
        if left:
            plan.warn(f"{head}: {', '.join(left)}")

    return warn


def _normalize_inputs(plan: RunPlan) -> Mapping[str, Path]:
    return {"source": plan.path(SOURCE), "candidates": plan.path(CANDIDATES), **_glossary(plan)}


def _normalize(plan: RunPlan) -> NormalizeResult:
    return normalize(
        plan.config,
        plan.source(),
        plan.path(CANDIDATES),
        plan.path(LANES),
        lanes=list(plan.lanes),
        force=True,
        warn=_unless_failed(plan),
    )


def _normalize_counts(result: NormalizeResult) -> dict[str, Any]:
    receipt = result.receipt()
    return {"lanes": receipt["lanes"], "rejected": receipt["rejected"]}


# -- bundle ---------------------------------------------------------------------------------


def _bundle_inputs(plan: RunPlan) -> Mapping[str, Path]:
    return {"source": plan.path(SOURCE), "lanes": plan.path(LANES)}


def _bundle(plan: RunPlan) -> BundleResult:
    return bundle(
        plan.config,
        plan.source(),
        plan.path(LANES),
        plan.path(BUNDLE),
        lanes=list(plan.lanes),
        force=True,
        warn=_unless_failed(plan),
        progress=plan.progress,
    )


def _bundle_counts(result: BundleResult) -> dict[str, Any]:
    return {"normalized_lanes": result.normalized_lanes, "files": list(result.files)}


def _bundled(plan: RunPlan, counts: Mapping[str, Any]) -> BundleResult:
    return BundleResult(
        plan.document_id,
        plan.semantic_digest,
        int(counts["normalized_lanes"]),
        tuple(counts["files"]),
    )


# -- report ---------------------------------------------------------------------------------


def _report_inputs(plan: RunPlan) -> Mapping[str, Path]:
    # the normalized lanes' rejections.jsonl: the counts the page shows; the glossary: its party
    # the source: where each record is in the session, for the timeline
    return {
        "bundle": plan.path(BUNDLE),
        "lanes": plan.path(LANES),
        "source": plan.path(SOURCE),
        **_glossary(plan),
    }


def run_notes(plan: RunPlan) -> RunNotes:
    """``notes_of`` the run, its extraction's lanes read from the extract stage's record."""
    record = plan.work.record(EXTRACT)
    return notes_of(plan.config, plan.lanes, [] if record is None else record.counts["lanes"])


def _report_configuration(plan: RunPlan) -> Any:
    return {"streamer": __version__, "run": run_notes(plan).to_json()}


def _report(plan: RunPlan) -> ReportSummary:
    return report(
        plan.path(BUNDLE),
        output=plan.path(REPORT),
        glossary=plan.config.normalization.glossary,
        rejections=plan.path(LANES) / REJECTIONS_FILE,
        run=run_notes(plan),
        source=plan.source(),
    )


def _report_counts(summary: ReportSummary) -> dict[str, Any]:
    return {
        "lanes": summary.lanes,
        "records": summary.records,
        "contexts": summary.contexts,
        "units": summary.units,
    }


STAGES: Sequence[Stage[Any]] = (
    Stage(
        IMPORT,
        _import_inputs,
        _import_configuration,
        (SOURCE,),
        _import,
        _import_counts,
        restore=_imported,
    ),
    Stage(
        EXTRACT,
        _extract_inputs,
        _configured,
        (CANDIDATES,),
        _extract,
        _extract_counts,
        failures=_extract_failures,
    ),
    Stage("normalize", _normalize_inputs, _configured, (LANES,), _normalize, _normalize_counts),
    Stage(
        "bundle", _bundle_inputs, _configured, (BUNDLE,), _bundle, _bundle_counts, restore=_bundled
    ),
    Stage("report", _report_inputs, _report_configuration, (REPORT,), _report, _report_counts),
)

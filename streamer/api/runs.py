"""``streamer run``: one transcript to a published bundle and its report, resumably.

    result = api.run("streamer.yaml", "session.vtt", "webvtt", "out/session")
    result.receipt()     # per stage: ran or skipped, seconds, counts

The stages (``streamer.api.stages``) write into the work folder ``DIR.work/`` beside the
output ``DIR``; a stage whose inputs and configuration are unchanged since it last
completed is skipped. At the end the bundle is published as ``DIR`` (atomically, by a
rename of hard links to the work folder's copy) and the report as ``DIR.html``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamer.api import stages
from streamer.api.config import load_config
from streamer.api.extraction import check_extraction
from streamer.api.lanes import Warn, effective_lanes, stderr_warning
from streamer.api.run_options import Progress
from streamer.api.stages import (
    BUNDLE,
    CANDIDATES,
    LANES,
    REPORT,
    RunPlan,
    Stage,
    extracted_lanes,
)
from streamer.api.transcripts import default_document_id
from streamer.api.work_folder import (
    RECORD_VERSION,
    StageRecord,
    WorkFolder,
    tree_digest,
    value_digest,
)
from streamer.framework.errors import ConfigurationError, ExitStatus
from streamer.importers.formats import FORMATS
from streamer.output.bundle_documents import INDEX_FILE
from streamer.output.bundle_publication import (
    check_destination,
    publisher_lock,
    publishing,
    staged_bundle,
)
from streamer.output.publication import DIRECTORY_MODE

WORK_SUFFIX = ".work"
REPORT_SUFFIX = ".html"


def work_folder_of(output: Path) -> Path:
    """The work folder of the bundle folder ``output``: ``output.work`` beside it."""
    return output.with_name(output.name + WORK_SUFFIX)


def report_path_of(output: Path) -> Path:
    """Where the report of the bundle folder ``output`` is published: ``output.html``."""
    return output.with_name(output.name + REPORT_SUFFIX)


@dataclass(frozen=True)
class StageOutcome:
    """What one stage did in this run: ``ran``, or ``skipped`` (unchanged since it last
    completed)."""

    stage: str
    status: str
    seconds: float
    counts: dict[str, Any]

    def receipt(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "counts": self.counts,
        }


@dataclass(frozen=True)
class RunResult:
    """What ``run`` did and published."""

    document_id: str
    semantic_digest: str
    output: Path
    report: Path
    stages: tuple[StageOutcome, ...]

    def _counts(self, stage: str) -> dict[str, Any]:
        return next(outcome.counts for outcome in self.stages if outcome.stage == stage)

    @property
    def normalized_lanes(self) -> int:
        """Lane payloads in the bundle (never the chunk map or the evidence context)."""
        return int(self._counts("bundle")["normalized_lanes"])

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(self._counts("bundle")["files"])

    @property
    def failures(self) -> tuple[str, ...]:
        """One content-safe line per lane that failed in a stage (extraction: a chunk that
        could not be answered). Such a lane is absent from the published bundle, the stage
        kept no record, and the rerun tries it again; ``streamer run`` exits 4."""
        lines = []
        for outcome in self.stages:
            failed = set(outcome.counts.get("failed_lanes", ()))
            if not failed:
                continue
            for lane in outcome.counts["lanes"]:
                if lane.get("lane_id") not in failed:
                    continue
                first = next(iter(lane.get("failures") or [{}]))
                where = f" ({first['chunk_id']}: {first['reason']})" if "reason" in first else ""
                lines.append(
                    f"lane {lane['lane_id']} failed in {outcome.stage}{where}; the bundle was "
                    "published without it (hint: run again: only what is missing is redone)"
                )
        return tuple(lines)

    @property
    def exit_status(self) -> ExitStatus:
        """``OK``, or ``INCOMPLETE`` (4) when a lane failed."""
        return ExitStatus.INCOMPLETE if self.failures else ExitStatus.OK

    def receipt(self) -> dict[str, Any]:
        """The one-line JSON receipt ``streamer run`` prints."""
        return {
            "status": "incomplete" if self.failures else "ok",
            "document_id": self.document_id,
            "semantic_digest": self.semantic_digest,
            "normalized_lanes": self.normalized_lanes,
            "files": list(self.files),
            "report": self.report.name,
            "stages": [outcome.receipt() for outcome in self.stages],
        }


class _Digests:
    """Digests of the files and folders a run reads, computed once unless rewritten."""

    def __init__(self) -> None:
        self._known: dict[Path, str] = {}

    def of(self, path: Path) -> str:
        if path not in self._known:
            self._known[path] = tree_digest(path)
        return self._known[path]

    def set(self, path: Path, digest: str) -> None:
        self._known[path] = digest


def _check_transcript(transcript: str | os.PathLike[str], format_name: str) -> Path:
    FORMATS.get(format_name)
    if os.fspath(transcript) == "-":
        raise ConfigurationError(
            "streamer run reads a transcript file, not standard input",
            hint="save the transcript to a file: a rerun resumes from it",
        )
    path = Path(transcript)
    if not path.is_file():
        raise ConfigurationError(
            f"transcript {path.name} does not exist or is not a file", hint="check TRANSCRIPT"
        )
    return path


def _owned(path: Path, work: WorkFolder, stage: str, name: str) -> bool:
    """Whether ``path`` holds exactly what this work folder's ``stage`` last made."""
    record = work.record(stage)
    return record is not None and tree_digest(path) == record.outputs.get(name)


def _check_destinations(output: Path, report: Path, work: WorkFolder, *, force: bool) -> None:
    """Fail before any stage runs unless the bundle and the report can be published: a
    destination that exists is replaced only with ``force``, or when it is what this work
    folder published before (a rerun)."""
    check_destination(output, force=True, marker=INDEX_FILE)
    if os.path.lexists(output) and not force and not _owned(output, work, "bundle", BUNDLE):
        raise ConfigurationError(
            f"output {output.name} already exists", hint="use --force to replace it"
        )
    if not os.path.lexists(report):
        return
    if report.is_symlink() or not report.is_file():
        raise ConfigurationError(f"report {report.name} exists and is not a file")
    if not force and not _owned(report, work, "report", REPORT):
        raise ConfigurationError(
            f"report {report.name} already exists", hint="use --force to replace it"
        )


def _run_stage(stage: Stage, plan: RunPlan, known: _Digests) -> StageOutcome:
    start = time.monotonic()
    work = plan.work
    inputs = {name: known.of(path) for name, path in stage.inputs(plan).items()}
    configuration = value_digest(stage.configuration(plan))
    record = work.record(stage.name)
    if (
        record is not None
        and record.inputs == inputs
        and record.configuration == configuration
        and all(known.of(plan.path(name)) == record.outputs.get(name) for name in stage.outputs)
    ):
        return StageOutcome(stage.name, "skipped", time.monotonic() - start, record.counts)
    work.forget(stage.name)
    counts = stage.run(plan)
    outputs = {}
    for name in stage.outputs:
        outputs[name] = tree_digest(plan.path(name))
        known.set(plan.path(name), outputs[name])
    seconds = time.monotonic() - start
    if not counts.get("failed_lanes"):
        # A stage that completed in part keeps no record: the rerun tries it again.
        work.write_record(
            StageRecord(RECORD_VERSION, stage.name, inputs, configuration, outputs, counts, seconds)
        )
    return StageOutcome(stage.name, "ran", seconds, counts)


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _publish_bundle(built: Path, output: Path, known: _Digests) -> None:
    if os.path.lexists(output) and tree_digest(output) == known.of(built):
        return
    with (
        publishing(output, force=True, marker=INDEX_FILE),
        staged_bundle(output, force=True) as staged,
    ):
        for path in sorted(built.rglob("*")):
            relative = path.relative_to(built).as_posix()
            if path.is_dir():
                os.mkdir(staged.folder / relative, DIRECTORY_MODE)
            else:
                _link_or_copy(path, staged.folder / relative)
                staged.files.append(relative)


def _publish_report(built: Path, report: Path, known: _Digests) -> None:
    if report.is_file() and tree_digest(report) == known.of(built):
        return
    temporary = report.with_name(f".{report.name}.{os.getpid()}.partial")
    try:
        _link_or_copy(built, temporary)
        os.replace(temporary, report)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def run(
    config_path: str | os.PathLike[str],
    transcript: str | os.PathLike[str],
    format_name: str,
    output: str | os.PathLike[str],
    *,
    document_id: str | None = None,
    lanes: Sequence[str] | None = None,
    force: bool = False,
    warn: Warn = stderr_warning,
    progress: Progress | None = None,
) -> RunResult:
    """Run every stage of ``streamer.api.stages`` for ``transcript`` and publish the bundle
    folder ``output`` and its report ``output.html``.

    Usage errors (the configuration, ``lanes``, the format, the destinations) come before
    any stage runs. A failed or interrupted run publishes nothing and keeps the work folder
    ``output.work``: the rerun starts at the first stage that did not complete.
    """
    config = load_config(config_path)
    run_lanes = effective_lanes(config, lanes)
    extracted = extracted_lanes(config, run_lanes)
    if extracted:  # its usage errors before any stage
        check_extraction(config, lanes=extracted)
    path = _check_transcript(transcript, format_name)
    if document_id is None:
        document_id = default_document_id(path)
    elif not document_id.strip():
        raise ConfigurationError("--document-id must not be empty")
    destination = Path(output)
    work = WorkFolder(work_folder_of(destination))
    report = report_path_of(destination)
    _check_destinations(destination, report, work, force=force)
    work.create(CANDIDATES, LANES)
    plan = RunPlan(Path(config_path), config, path, format_name, document_id, run_lanes, work, warn)
    plan.progress = progress
    known = _Digests()
    # A second run of the same output waits for the first: they share the work folder.
    with publisher_lock(work.root):
        outcomes = [_run_stage(stage, plan, known) for stage in stages.STAGES]
        _publish_bundle(plan.path(BUNDLE), destination, known)
        _publish_report(plan.path(REPORT), report, known)
    imported = outcomes[0].counts
    return RunResult(
        document_id,
        str(imported["semantic_digest"]),
        destination,
        report,
        tuple(outcomes),
    )

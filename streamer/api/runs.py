"""``streamer run``: one transcript to a published bundle and its report, resumably.

    result = api.run(None, "session.vtt", None, "out/session")  # the default configuration
    result = api.run("streamer.yaml", "session.vtt", "webvtt", "out/session")
    result.receipt()     # per stage: ran or skipped, seconds, counts

Without a configuration file (``config_path`` ``None``) the default configuration is used
(``streamer.api.config.default_config``); without a format (``None``) it is found from the
transcript's name and content (``streamer.importers.detection``).

The stages (``streamer.api.stages``) write into the work folder ``DIR.work/`` beside the
output ``DIR``; a stage whose inputs and configuration are unchanged since it last
completed is skipped. At the end the bundle is published as ``DIR`` (atomically, by a
rename of hard links to the work folder's copy) and the report as ``DIR.html``.

The work folder holds a copy of the transcript (``source.jsonl``). A run that fails or is
interrupted before its first stage completes removes it (nothing to resume); a later
failure keeps it so that the rerun resumes, and says so (``WorkKept``). ``clean=True``
removes it when the run ends, however it ends.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from streamer.api import stages
from streamer.api.bundles import BundleResult
from streamer.api.extraction import LaneFailure
from streamer.api.lanes import Warn, stderr_warning
from streamer.api.page_notes import kinds_not_run
from streamer.api.run_checks import (
    check_destinations,
    check_transcript,
    checked_configuration,
)
from streamer.api.run_failure import WORK_SUFFIX, after_failure, with_note, work_output
from streamer.api.run_options import Progress
from streamer.api.run_publication import Digests, publish_bundle, publish_report
from streamer.api.sources import check_jobs
from streamer.api.stages import (
    BUNDLE,
    CANDIDATES,
    LANES,
    REPORT,
    RunPlan,
    Stage,
)
from streamer.api.transcripts import ImportResult, default_document_id
from streamer.api.work_folder import (
    RECORD_VERSION,
    StageRecord,
    WorkFolder,
    tree_digest,
    value_digest,
)
from streamer.framework.errors.types import ConfigurationError, ExitStatus
from streamer.importers.formats import ImportOptions
from streamer.output.bundle_publication import publisher_lock
from streamer.output.parent_folders import parents_made

REPORT_SUFFIX = ".html"

R = TypeVar("R")


def work_folder_of(output: Path) -> Path:
    """The work folder of the bundle folder ``output``: ``output.work`` beside it."""
    return output.with_name(output.name + WORK_SUFFIX)


def report_path_of(output: Path) -> Path:
    """Where the report of the bundle folder ``output`` is published: ``output.html``."""
    return output.with_name(output.name + REPORT_SUFFIX)


@dataclass(frozen=True)
class StageOutcome(Generic[R]):
    """What one stage did in this run: ``ran``, or ``skipped`` (unchanged since it last
    completed). ``counts``: what its record keeps (the receipt's); ``result``: its typed
    result (``Stage.run``'s), or for a stage skipped the one its record restores, or
    ``None``; ``failures``: the lanes that failed in it."""

    stage: str
    status: str
    seconds: float
    counts: dict[str, Any]
    result: R | None = None
    failures: tuple[LaneFailure, ...] = ()

    def receipt(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "counts": self.counts,
        }


@dataclass(frozen=True)
class RunResult:
    """What ``run`` did and published: ``bundled``, what the bundle stage published."""

    document_id: str
    semantic_digest: str
    output: Path
    report: Path
    stages: tuple[StageOutcome[Any], ...]
    bundled: BundleResult
    # the default lanes of the extracted kinds the configuration did not run (never in the
    # receipt: the terminal summary says them), and whether it names a model server
    not_run: tuple[str, ...] = ()
    model_server: bool = False

    @property
    def normalized_lanes(self) -> int:
        """Lane payloads in the bundle (never the chunk map or the evidence context)."""
        return self.bundled.normalized_lanes

    @property
    def files(self) -> tuple[str, ...]:
        return self.bundled.files

    @property
    def failures(self) -> tuple[str, ...]:
        """One content-safe line per lane that failed in a stage (extraction: a chunk that
        could not be answered). Such a lane is absent from the published bundle, the stage
        kept no record, and the rerun tries it again; ``streamer run`` exits 4."""
        lines = []
        for (stage, chunk_id, reason, hint), failed in _alike(self.stages).items():
            whole = [each.lane_id for each in failed if not each.partial]
            partial = [each for each in failed if each.partial]
            what, published = [], []
            if whole:
                what.append(_lanes(whole))
                published.append(f"without {'it' if len(whole) == 1 else 'them'}")
            if partial:  # lanes whose other engines wrote their part
                engines = ", ".join(sorted({str(each.engine) for each in partial}))
                named = [each.lane_id for each in partial]
                what.append(f"the {engines} part of {_lanes(named)}")
                owner = "its" if len(named) == 1 else "their"
                if whole:
                    published[0] = "without " + ", ".join(whole)
                    owner = ", ".join(named) + "'s" if len(named) == 1 else ", ".join(named) + ":"
                published.append(f"with {owner} other engines' records only")
            remedy = "run again: only what is missing is redone"
            lines.append(
                f"{' and '.join(what)} failed in {stage} ({chunk_id}: {reason}); the bundle was "
                f"published {' and '.join(published)} (hint: "
                + (remedy if hint is None else f"{hint}; then {remedy}")
                + ")"
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


def _alike(
    stages: Sequence[StageOutcome[Any]],
) -> dict[tuple[str, str, str, str | None], list[LaneFailure]]:
    """The failed lanes (or engines of lanes), those failed alike (the same stage, chunk,
    reason and hint: a model server that cannot be reached fails every model lane, and
    the model part of every lane on rules and a model, at once) together."""
    alike: dict[tuple[str, str, str, str | None], list[LaneFailure]] = {}
    for outcome in stages:
        for failed in outcome.failures:
            key = (outcome.stage, failed.chunk_id, failed.reason, failed.hint)
            alike.setdefault(key, []).append(failed)
    return alike


def _lanes(lane_ids: Sequence[str]) -> str:
    return ("lane " if len(lane_ids) == 1 else "lanes ") + ", ".join(lane_ids)


def _skipped(
    stage: Stage[R], plan: RunPlan, record: StageRecord, start: float
) -> StageOutcome[R] | None:
    """The outcome of a stage its record matches, with its result restored from the
    record's counts when the run needs it (``Stage.restore``); ``None`` when they do not
    restore it: such a record is as one unread, the stage runs again."""
    result: R | None = None
    if stage.restore is not None:
        try:
            result = stage.restore(plan, record.counts)
        except (KeyError, TypeError, ValueError):
            return None
    return StageOutcome(stage.name, "skipped", time.monotonic() - start, record.counts, result)


def _run_stage(stage: Stage[R], plan: RunPlan, known: Digests) -> StageOutcome[R]:
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
        skipped = _skipped(stage, plan, record, start)
        if skipped is not None:
            return skipped
    work.forget(stage.name)
    result = stage.run(plan)
    counts = stage.counts(result)
    failures = stage.failures(result)
    outputs = {}
    for name in stage.outputs:
        outputs[name] = tree_digest(plan.path(name))
        known.set(plan.path(name), outputs[name])
    seconds = time.monotonic() - start
    if not failures:
        # A stage that completed in part keeps no record: the rerun tries it again.
        work.write_record(
            StageRecord(RECORD_VERSION, stage.name, inputs, configuration, outputs, counts, seconds)
        )
    return StageOutcome(stage.name, "ran", seconds, counts, result, failures)


def _run_stages(
    plan: RunPlan, known: Digests, staged: StagedProgress | None
) -> tuple[tuple[StageOutcome[Any], ...], BundleResult]:
    """Every stage in turn (the later ones read the document the import accepted); their
    outcomes and what the bundle stage published."""
    outcomes: list[StageOutcome[Any]] = []
    bundled: BundleResult | None = None
    for number, stage in enumerate(stages.STAGES, start=1):
        if staged is not None:
            staged.stage(stage.name, number, len(stages.STAGES))
        outcome = _run_stage(stage, plan, known)
        plan.failed.update(failed.lane_id for failed in outcome.failures if not failed.partial)
        if isinstance(outcome.result, ImportResult):
            plan.accept(outcome.result)
        elif isinstance(outcome.result, BundleResult):
            bundled = outcome.result
        outcomes.append(outcome)
    assert bundled is not None, "the bundle stage restores its result when skipped"
    return tuple(outcomes), bundled


@runtime_checkable
class StagedProgress(Protocol):
    """A progress display that is told which stage runs (``stage``), the bytes its pass
    reads (called as a ``Progress``) and the chunks extraction answers (``chunk``)."""

    def __call__(self, done: int, total: int | None, /) -> None: ...

    def stage(self, name: str, number: int, count: int, /) -> None: ...

    def chunk(self, lane_id: str, done: int, total: int, /) -> None: ...


def run(
    config_path: str | os.PathLike[str] | None,
    transcript: str | os.PathLike[str],
    format_name: str | None,
    output: str | os.PathLike[str],
    *,
    document_id: str | None = None,
    lanes: Sequence[str] | None = None,
    force: bool = False,
    warn: Warn = stderr_warning,
    progress: Progress | None = None,
    model_url: str | None = None,
    model: str | None = None,
    import_options: ImportOptions | None = None,
    clean: bool = False,
    glossary: str | os.PathLike[str] | None = None,
    jobs: int = 1,
) -> RunResult:
    """Run every stage of ``streamer.api.stages`` for ``transcript`` and publish the bundle
    folder ``output`` and its report ``output.html``.

    ``config_path`` ``None``: the default configuration (``model_url`` and ``model`` name
    its model server); ``format_name`` ``None``: found from the transcript; ``glossary``:
    the glossary file, in place of the configuration's; ``jobs``: the processes that
    import the transcript (``crd3``) and answer the rules lanes' chunks (this one and
    ``jobs - 1`` workers; the same bytes).
    Usage errors (the configuration, ``lanes``, the format, the import options, the
    destinations) come before any stage runs. A failed or interrupted run publishes nothing;
    it keeps the work folder ``output.work`` only when a stage completed (the rerun starts
    at the first stage that did not), unless ``clean``.
    """
    check_jobs(jobs)
    effective, run_lanes = checked_configuration(config_path, lanes, model_url, model, glossary)
    config = effective.config
    options = import_options or ImportOptions()
    path, format_name = check_transcript(transcript, format_name, options)
    if document_id is None:
        document_id = default_document_id(path)
    elif not document_id.strip():
        raise ConfigurationError("--document-id must not be empty")
    destination = Path(output)
    with parents_made(destination.parent, os.fspath(output)):
        work = WorkFolder(work_folder_of(destination))
        report = report_path_of(destination)
        check_destinations(destination, report, work, force=force)
        work.create(CANDIDATES, LANES, given=work_output(output))
        plan = RunPlan(
            effective.path,
            config,
            path,
            format_name,
            document_id,
            run_lanes,
            work,
            warn,
            progress=progress,
            import_options=options,
            config_text=effective.text,
            jobs=jobs,
        )
        return _run_plan(plan, progress, output, clean=clean)


def _run_plan(
    plan: RunPlan, progress: Progress | None, output: str | os.PathLike[str], *, clean: bool
) -> RunResult:
    """Run the stages of ``plan`` and publish; on failure, what the work folder keeps."""
    work = plan.work
    destination = Path(output)
    report = report_path_of(destination)
    staged = progress if isinstance(progress, StagedProgress) else None
    if staged is not None:
        plan.chunk_progress = staged.chunk
    known = Digests()
    try:
        # A second run of the same output waits for the first: they share the work folder.
        with publisher_lock(work.root):
            outcomes, bundled = _run_stages(plan, known, staged)
            publish_bundle(plan.path(BUNDLE), destination, known)
            publish_report(plan.path(REPORT), report, known)
    except BaseException as error:
        with_note(error, after_failure(work, output, clean=clean))
        raise
    finally:
        if plan.index is not None:
            plan.index.close()
    if clean:
        shutil.rmtree(work.root, ignore_errors=True)
    config = plan.config
    not_run = kinds_not_run(config, plan.lanes)
    return RunResult(
        plan.document_id,
        plan.semantic_digest,
        destination,
        report,
        outcomes,
        bundled,
        not_run,
        config.extraction.base_url is not None,
    )

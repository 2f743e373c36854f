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

import contextlib
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from streamer.api import stages
from streamer.api.config import effective_config
from streamer.api.extraction import check_extraction
from streamer.api.lanes import Warn, effective_lanes, stderr_warning
from streamer.api.run_options import Progress
from streamer.api.stages import (
    BUNDLE,
    CANDIDATES,
    IMPORT,
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
from streamer.configuration import Configuration
from streamer.framework.errors import ConfigurationError, ExitStatus, StreamerError
from streamer.framework.safe_text import shown_path
from streamer.importers.detection import detect_format
from streamer.importers.formats import FORMATS, ImportOptions, check_options
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


def _check_transcript(
    transcript: str | os.PathLike[str], format_name: str | None, options: ImportOptions
) -> tuple[Path, str]:
    """The transcript's path and its format (found when ``format_name`` is ``None``); the
    import options checked against it."""
    if format_name is not None:
        FORMATS.get(format_name)
    if os.fspath(transcript) == "-":
        raise ConfigurationError(
            "streamer run reads a transcript file, not standard input",
            hint="save the transcript to a file: a rerun resumes from it",
        )
    path = Path(transcript)
    given = shown_path(transcript)
    if not path.is_file():
        raise ConfigurationError(
            f"transcript {given} does not exist or is not a file", hint="check TRANSCRIPT"
        )
    if format_name is None:
        format_name = detect_format(transcript)
        check_options(format_name, options, read_as=f"{given}, read as {format_name}")
    else:
        check_options(format_name, options)
    return path, format_name


def check_glossary(config: Configuration) -> None:
    """The configured glossary is a file: a mistyped path is a usage error before any
    stage runs (it would fail the run after the import, with a copy of the transcript)."""
    glossary = config.normalization.glossary
    if glossary is not None and not glossary.is_file():
        where = "" if config.path is None else f" in {shown_path(config.path)}"
        raise ConfigurationError(
            f"glossary {shown_path(glossary)} does not exist or is not a file",
            hint=f"check pipeline.normalization.glossary{where} (relative to its folder)",
        )


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
            f"output {shown_path(output)} already exists", hint="use --force to replace it"
        )
    if not os.path.lexists(report):
        return
    if report.is_symlink() or not report.is_file():
        raise ConfigurationError(f"report {shown_path(report)} exists and is not a file")
    if not force and not _owned(report, work, "report", REPORT):
        raise ConfigurationError(
            f"report {shown_path(report)} already exists", hint="use --force to replace it"
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


@runtime_checkable
class StagedProgress(Protocol):
    """A progress display that is told which stage runs (``stage``), the bytes its pass
    reads (called as a ``Progress``) and the chunks extraction answers (``chunk``)."""

    def __call__(self, done: int, total: int | None, /) -> None: ...

    def stage(self, name: str, number: int, count: int, /) -> None: ...

    def chunk(self, lane_id: str, done: int, total: int, /) -> None: ...


class WorkKept:
    """What a failed or interrupted run left behind, for its message: ``None`` when nothing
    was kept, else the work folder (as the user named the output) and its size."""

    def __init__(self, folder: str, size: int) -> None:
        self.folder = folder
        self.size = size

    def note(self) -> str:
        return (
            f"nothing published; kept {self.folder} ({_size(self.size)}, a copy of the "
            "transcript) to resume: run the same command again, or add --clean to remove it"
        )


def _size(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    raise AssertionError  # pragma: no cover


def folder_size(folder: Path) -> int:
    """The bytes of the files under ``folder``."""
    total = 0
    for child in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if child.is_file() and not child.is_symlink():
                total += child.stat().st_size
    return total


def _work_output(output: str | os.PathLike[str]) -> str:
    """The work folder's path as the user named the output (``out/s`` -> ``out/s.work``)."""
    return os.fspath(output).rstrip("/") + WORK_SUFFIX


def _after_failure(
    work: WorkFolder, output: str | os.PathLike[str], *, clean: bool
) -> WorkKept | None:
    """Remove the work folder when nothing in it can be resumed (no stage completed), or
    when ``clean``; else say what is kept."""
    completed = any(work.record(stage.name) is not None for stage in stages.STAGES)
    if clean or not completed:
        shutil.rmtree(work.root, ignore_errors=True)
        return None
    return WorkKept(shown_path(_work_output(output)), folder_size(work.root))


def _with_note(error: BaseException, kept: WorkKept | None) -> None:
    """Attach what was kept to the error the CLI prints: to a ``StreamerError``'s hint, to
    an interruption as its note (``streamer: interrupted (...)``)."""
    if kept is None:
        return  # nothing kept: the CLI's line needs no more (an interruption says so)
    note = kept.note()
    if isinstance(error, StreamerError):
        error.hint = note if error.hint is None else f"{error.hint}; {note}"
    else:
        error.add_note(note)


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
) -> RunResult:
    """Run every stage of ``streamer.api.stages`` for ``transcript`` and publish the bundle
    folder ``output`` and its report ``output.html``.

    ``config_path`` ``None``: the default configuration (``model_url`` and ``model`` name
    its model server); ``format_name`` ``None``: found from the transcript.
    Usage errors (the configuration, ``lanes``, the format, the import options, the
    destinations) come before any stage runs. A failed or interrupted run publishes nothing;
    it keeps the work folder ``output.work`` only when a stage completed (the rerun starts
    at the first stage that did not), unless ``clean``.
    """
    effective = effective_config(config_path, model_url, model)
    config = effective.config
    run_lanes = effective_lanes(config, lanes)
    extracted = extracted_lanes(config, run_lanes)
    if extracted:  # its usage errors before any stage
        check_extraction(config, lanes=extracted)
    check_glossary(config)
    options = import_options or ImportOptions()
    path, format_name = _check_transcript(transcript, format_name, options)
    if document_id is None:
        document_id = default_document_id(path)
    elif not document_id.strip():
        raise ConfigurationError("--document-id must not be empty")
    destination = Path(output)
    work = WorkFolder(work_folder_of(destination))
    report = report_path_of(destination)
    _check_destinations(destination, report, work, force=force)
    work.create(CANDIDATES, LANES, given=_work_output(output))
    plan = RunPlan(
        effective.path,
        config,
        path,
        format_name,
        document_id,
        run_lanes,
        work,
        warn,
        import_options=options,
        config_text=effective.text,
    )
    plan.progress = progress
    staged = progress if isinstance(progress, StagedProgress) else None
    if staged is not None:
        plan.chunk_progress = staged.chunk
    known = _Digests()
    try:
        # A second run of the same output waits for the first: they share the work folder.
        with publisher_lock(work.root):
            outcomes = []
            for number, stage in enumerate(stages.STAGES, start=1):
                if staged is not None:
                    staged.stage(stage.name, number, len(stages.STAGES))
                outcome = _run_stage(stage, plan, known)
                if stage.name == IMPORT:  # the later stages read what it accepted
                    plan.accept(outcome.counts)
                outcomes.append(outcome)
            _publish_bundle(plan.path(BUNDLE), destination, known)
            _publish_report(plan.path(REPORT), report, known)
    except BaseException as error:
        _with_note(error, _after_failure(work, output, clean=clean))
        raise
    finally:
        if plan.index is not None:
            plan.index.close()
    if clean:
        shutil.rmtree(work.root, ignore_errors=True)
    imported = outcomes[0].counts
    return RunResult(
        document_id,
        str(imported["semantic_digest"]),
        destination,
        report,
        tuple(outcomes),
    )

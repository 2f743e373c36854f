"""``streamer batch``: every session of a manifest, as ``streamer run`` does each, in
parallel on a local pool of processes or on a Dask distributed scheduler.

    result = api.batch("streamer.yaml", "sessions.csv", "out/", workers=2)
    result.failed        # the sessions that failed (each one's line is in out/batch.jsonl)
    api.batch(None, "sessions.csv", "out/")  # the default configuration, as streamer run's

Without a configuration file (``config_path`` ``None``) every session runs with the default
configuration of ``streamer run`` (the built-in rules; every extracted kind when a model
server is named by ``model_url`` and ``model`` or ``OPENAI_BASE_URL`` and ``OPENAI_MODEL``),
resolved once here and passed to every worker.

Session ``ID`` publishes ``DIR/ID/`` (the bundle), ``DIR/ID.html`` (its report) and keeps
``DIR/ID.work/``; ``DIR/campaign.registry.json`` is the campaign registry and
``DIR/index.html`` the campaign page, both written at the end of each run from the
session bundles (``streamer campaign DIR``). ``DIR/batch.jsonl`` has one line per session,
rewritten atomically as each one ends, so an interrupted batch keeps the lines of the
sessions that finished. A rerun skips a session whose last line says it completed, with
the same inputs (the transcript's and the configuration's digests, its format, document ID
and lanes) and whose bundle is still the one it published.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from streamer import __version__
from streamer.api.batch_executors import (
    DaskPool,
    LocalPool,
    SessionJob,
    SessionOutcome,
    default_workers,
    session_jobs,
)
from streamer.api.batch_inputs import TranscriptSeen, transcript_digest
from streamer.api.batch_manifest import Session, read_manifest
from streamer.api.batch_summary import (
    COMPLETE,
    SUMMARY_FILE,
    SummaryLine,
    previous_lines,
    write_summary,
)
from streamer.api.campaigns import CAMPAIGN_FILE, campaign
from streamer.api.registries import campaign_registry
from streamer.api.run_checks import checked_configuration
from streamer.api.runs import work_folder_of
from streamer.api.sources import check_jobs
from streamer.api.stages import BUNDLE
from streamer.api.work_folder import WorkFolder, file_digest, tree_digest, value_digest
from streamer.configuration.defaults import model_server
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, ExitStatus
from streamer.output.campaign_registry import REGISTRY_FILE
from streamer.output.publication import DIRECTORY_MODE


@dataclass(frozen=True)
class BatchProgress:
    """Sessions done (completed or skipped), failed and running, of ``total``."""

    done: int
    failed: int
    running: int
    total: int


@dataclass(frozen=True)
class BatchResult:
    """The summary of a batch, one line per session of the manifest that ended."""

    lines: tuple[SummaryLine, ...]
    total: int

    @property
    def failed(self) -> tuple[SummaryLine, ...]:
        return tuple(line for line in self.lines if line.status == "failed")

    @property
    def failures(self) -> tuple[str, ...]:
        """One error line per failed session, as the CLI prints it."""
        return tuple(
            f"session {line.document_id} (row {line.row}) failed: {line.error}"
            for line in self.failed
        )

    @property
    def exit_status(self) -> ExitStatus:
        """``OK`` when every session completed, else ``INCOMPLETE`` (4)."""
        return ExitStatus.INCOMPLETE if self.failed else ExitStatus.OK

    def receipt(self) -> dict[str, Any]:
        """The one-line JSON receipt ``streamer batch`` prints."""
        count = {status: 0 for status in ("ok", "skipped", "failed")}
        for line in self.lines:
            count[line.status] += 1
        return {
            "status": "failed" if self.failed else "ok",
            "sessions": self.total,
            **count,
            "summary": SUMMARY_FILE,
        }


def _output_folder(output_dir: str | os.PathLike[str]) -> Path:
    folder = Path(output_dir)
    if os.path.lexists(folder) and not folder.is_dir():
        raise ConfigurationError(f"--output-dir {shown_path(folder)} is not a folder")
    return folder


def _inputs(
    session: Session, config_digest: str, lanes: tuple[str, ...], before: SummaryLine | None
) -> tuple[str, TranscriptSeen | None]:
    """The digest of a session's inputs, and what was seen of its transcript: not read
    again when unchanged since ``before`` (``batch_inputs``)."""
    if session.failure is not None:
        return _inputs_digest(session, config_digest, lanes, None), None
    seen = None if before is None else before.transcript_seen
    transcript, seen = transcript_digest(session.transcript, seen)
    return _inputs_digest(session, config_digest, lanes, transcript), seen


def _inputs_digest(
    session: Session, config_digest: str, lanes: tuple[str, ...], transcript: str | None
) -> str:
    return value_digest(
        {
            "streamer": __version__,
            "transcript": transcript,
            "config": config_digest,  # the configuration file's and its glossary's
            "format": session.format_name,
            "document_id": session.document_id,
            "lanes": list(lanes),
            # the options given (none: the digest a manifest without them always had)
            **({"options": session.options.given()} if session.options.given() else {}),
        }
    )


def _still_published(folder: Path, document_id: str) -> bool:
    output = folder / document_id
    record = WorkFolder(work_folder_of(output)).record("bundle")
    return record is not None and tree_digest(output) == record.outputs.get(BUNDLE)


def batch(
    config_path: str | os.PathLike[str] | None,
    manifest: str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    lanes: Sequence[str] | None = None,
    progress: Callable[[BatchProgress], None] | None = None,
    model_url: str | None = None,
    model: str | None = None,
    glossary: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
) -> BatchResult:
    """Run every session of ``manifest`` into ``output_dir``, on ``workers`` local
    processes (default: the CPU count) or on the Dask scheduler at ``scheduler``;
    ``glossary`` (``--glossary``) in place of the configuration's; ``jobs``: each
    session's ``run(jobs=)`` (default: locally, the cores shared among the sessions that
    run at once, ``session_jobs``; on a scheduler, 1).

    The configuration, the lanes and the whole manifest are checked before any session
    runs (``ConfigurationError``, exit status 2). A session that fails is recorded in
    ``batch.jsonl`` with its exit status and error line; the others go on.
    """
    if workers is not None and scheduler is not None:
        raise ConfigurationError("give either --workers or --scheduler, not both")
    if workers is not None and workers < 1:
        raise ConfigurationError("--workers must be at least 1")
    if jobs is not None:
        check_jobs(jobs)
    effective, run_lanes = checked_configuration(config_path, lanes, model_url, model, glossary)
    config = effective.config
    selected = tuple(run_lanes) if lanes else ()
    sessions = read_manifest(manifest)
    folder = _output_folder(output_dir)
    pool = DaskPool(scheduler) if scheduler is not None else LocalPool(workers or default_workers())
    try:
        glossary = config.normalization.glossary
        result = _batch(
            _SessionConfig.of(config_path, effective.text, glossary, model_url, model),
            sessions,
            folder,
            pool,
            run_lanes,
            selected,
            progress,
            jobs,
        )
    finally:
        pool.close()
    registry = None
    if all(session.document_id != REGISTRY_FILE for session in sessions):
        registry = campaign_registry(folder, glossary=glossary, option="--output-dir")
    if all(session.document_id + ".html" != CAMPAIGN_FILE for session in sessions):
        # the campaign page, beside the session reports, from the registry
        campaign(
            folder, glossary=glossary, registry=None if registry is None else registry.registry
        )
    return result


@dataclass(frozen=True)
class _SessionConfig:
    """What every session of a batch runs with: the configuration file (absolute; ``None``:
    the default configuration with the model server named by ``model_url`` and ``model``)
    and the digest that tells a rerun whether it changed."""

    path: str | None
    model_url: str | None
    model: str | None
    digest: str
    glossary: str | None = None  # --glossary (absolute), given to every session

    @classmethod
    def of(
        cls,
        config_path: str | os.PathLike[str] | None,
        text: str,
        glossary: Path | None,
        model_url: str | None,
        model: str | None,
    ) -> _SessionConfig:
        glossary_digest = None if glossary is None else tree_digest(glossary)
        given = None if glossary is None else os.fspath(glossary.absolute())
        if config_path is not None:
            digest = value_digest([file_digest(Path(config_path)), glossary_digest])
            return cls(os.fspath(Path(config_path).absolute()), None, None, digest, given)
        # the default configuration as streamer config --show renders it (its server and
        # model, never a key), resolved here so that every worker runs the same one
        server = model_server(model_url, model)
        # a run without a glossary keeps the digest it always had
        default = ["default", text] if glossary is None else ["default", text, glossary_digest]
        return cls(
            None,
            None if server is None else server.base_url,
            None if server is None else server.model,
            value_digest(default),
            given,
        )


def _batch(
    session_config: _SessionConfig,
    sessions: tuple[Session, ...],
    folder: Path,
    pool: DaskPool | LocalPool,
    run_lanes: tuple[str, ...],
    selected: tuple[str, ...],
    progress: Callable[[BatchProgress], None] | None,
    jobs: int | None,
) -> BatchResult:
    if not folder.exists():
        os.makedirs(folder, DIRECTORY_MODE)
    summary = folder / SUMMARY_FILE
    previous = previous_lines(summary)
    lines: dict[int, SummaryLine] = {}
    inputs: dict[int, str] = {}
    runs: list[SessionJob] = []
    seen: dict[int, TranscriptSeen | None] = {}
    for session in sessions:
        before = previous.get(session.document_id)
        digest, seen[session.row] = _inputs(session, session_config.digest, run_lanes, before)
        inputs[session.row] = digest
        if session.failure is not None:  # its transcript cannot be read: it fails alone
            status, error = session.failure
            lines[session.row] = _line(
                session,
                SessionOutcome(session.row, session.document_id, status, error, 0.0, None, 0),
                digest,
            )
            continue
        if (
            before is not None
            and before.status in COMPLETE
            and before.inputs == digest
            and _still_published(folder, session.document_id)
        ):
            lines[session.row] = msgspec.structs.replace(
                before,
                row=session.row,
                status="skipped",
                seconds=0.0,
                transcript_seen=seen[session.row],
            )
            continue
        runs.append(_job(session, session_config, folder, selected))
    by_row = {session.row: session for session in sessions}
    total = len(sessions)
    state = {"running": 0}

    def show() -> None:
        if progress is not None:
            failed = sum(1 for line in lines.values() if line.status == "failed")
            progress(BatchProgress(len(lines) - failed, failed, state["running"], total))

    def running(count: int) -> None:
        state["running"] = count
        show()

    write_summary(summary, lines)
    show()
    if runs:
        each = jobs
        if each is None:
            each = session_jobs(len(runs), pool.workers) if isinstance(pool, LocalPool) else 1
        runs = [dataclasses.replace(job, jobs=each) for job in runs]
        for outcome in pool.outcomes(runs, running):
            lines[outcome.row] = _line(
                by_row[outcome.row], outcome, inputs[outcome.row], seen.get(outcome.row)
            )
            write_summary(summary, lines)
            show()
    return BatchResult(tuple(lines[row] for row in sorted(lines)), total)


def _job(
    session: Session, session_config: _SessionConfig, folder: Path, selected: tuple[str, ...]
) -> SessionJob:
    return SessionJob(
        session.row,
        session_config.path,
        os.fspath(session.transcript.absolute()),
        session.format_name,
        session.document_id,
        os.fspath((folder / session.document_id).absolute()),
        selected,
        session.options,
        session_config.model_url,
        session_config.model,
        session_config.glossary,
    )


def _line(
    session: Session,
    outcome: SessionOutcome,
    inputs: str,
    transcript_seen: TranscriptSeen | None = None,
) -> SummaryLine:
    return SummaryLine(
        row=session.row,
        document_id=session.document_id,
        transcript=session.listed_as,
        format=session.format_name,
        status="ok" if outcome.exit_status == 0 else "failed",
        exit_status=outcome.exit_status,
        error=outcome.error,
        seconds=round(outcome.seconds, 3),
        warnings=outcome.warnings,
        inputs=inputs,
        receipt=outcome.receipt,
        transcript_seen=transcript_seen,
    )

"""Where the sessions of a batch run: a local pool of processes, or a Dask distributed
scheduler that is already running (the optional extra ``streamer[dask]``).

Each session is one call of ``run_session`` in a worker process; it never raises for a
bad session (its failure is in the outcome), so one bad transcript fails only its row.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import multiprocessing
import os
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

from streamer.api.runs import run, work_folder_of
from streamer.framework.errors.types import ConfigurationError, ExitStatus, StreamerError
from streamer.framework.source.parallel import MAX_JOBS
from streamer.importers.formats import ImportOptions
from streamer.output.publication import atomic_file

WARNINGS_FILE = "warnings.log"
CONNECT_TIMEOUT = "10s"


@dataclass(frozen=True)
class SessionJob:
    """What a worker needs to run one session (plain values: it crosses processes)."""

    row: int
    config: str | None  # None: the default configuration, with the model server below
    transcript: str
    format_name: str
    document_id: str
    output: str
    lanes: tuple[str, ...]
    options: ImportOptions = field(default_factory=ImportOptions)
    model_url: str | None = None
    model: str | None = None
    glossary: str | None = None
    jobs: int = 1  # the processes of its run's rules lanes (``run(jobs=)``)


@dataclass(frozen=True)
class SessionOutcome:
    """How one session ended: ``exit_status`` is what ``streamer run`` would return."""

    row: int
    document_id: str
    exit_status: int
    error: str | None
    seconds: float
    receipt: dict[str, Any] | None
    warnings: int


def run_session(job: SessionJob) -> SessionOutcome:
    """Run one session as ``streamer run`` does; its warnings go to ``warnings.log`` in
    its work folder."""
    start = time.monotonic()
    warnings: list[str] = []
    try:
        result = run(
            job.config,
            job.transcript,
            job.format_name,
            job.output,
            document_id=job.document_id,
            lanes=job.lanes or None,
            warn=warnings.append,
            import_options=job.options,
            model_url=job.model_url,
            model=job.model,
            glossary=job.glossary,
            jobs=job.jobs,
        )
        receipt: dict[str, Any] | None = result.receipt()
        status = result.exit_status
        error = result.failures[0] if result.failures else None
    except StreamerError as failure:
        receipt, status, error = None, failure.exit_status, failure.one_line()
    except Exception as failure:
        receipt, status = None, ExitStatus.UNEXPECTED
        error = f"unexpected failure ({type(failure).__name__})"
    work = work_folder_of(Path(job.output))
    if work.is_dir():
        with atomic_file(work / WARNINGS_FILE) as out:
            out.write("".join(f"streamer: warning: {line}\n" for line in warnings).encode())
    return SessionOutcome(
        job.row,
        job.document_id,
        int(status),
        error,
        time.monotonic() - start,
        receipt,
        len(warnings),
    )


Running = Callable[[int], None]
"""Called with the number of sessions in progress whenever it may have changed."""


class LocalPool:
    """``workers`` local processes, forked from a fork server that imported streamer once
    (so a worker starts in milliseconds, and never as a fork of a process holding
    threads); spawned where there is no fork server."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def close(self) -> None:
        pass

    def outcomes(self, jobs: Sequence[SessionJob], running: Running) -> Iterator[SessionOutcome]:
        """Run ``jobs``; yield each outcome as it completes."""
        context: BaseContext
        if "forkserver" in multiprocessing.get_all_start_methods():
            forkserver = multiprocessing.get_context("forkserver")
            forkserver.set_forkserver_preload([__name__])
            context = forkserver
        else:  # pragma: no cover - not POSIX
            context = multiprocessing.get_context("spawn")
        executor = concurrent.futures.ProcessPoolExecutor(self.workers, mp_context=context)
        try:
            pending = {executor.submit(run_session, job): job for job in jobs}
            running(min(self.workers, len(pending)))
            for future in concurrent.futures.as_completed(pending):
                job = pending.pop(future)
                yield _outcome(job, future.result)
                running(min(self.workers, len(pending)))
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM) or closed early: stop the sessions in progress
            # rather than wait for them; each one publishes nothing when stopped.
            executor.shutdown(wait=False, cancel_futures=True)
            for child in multiprocessing.active_children():
                child.terminate()
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)


class DaskPool:
    """The workers of the running Dask distributed scheduler at ``address``; they need
    streamer installed and see the same paths. Connecting is checked at once."""

    def __init__(self, address: str) -> None:
        distributed = _distributed()
        self._as_completed = distributed.as_completed
        try:
            self._client = distributed.Client(
                address, timeout=CONNECT_TIMEOUT, set_as_default=False
            )
        except (OSError, TimeoutError, ValueError):
            raise ConfigurationError(
                f"cannot reach the Dask scheduler at {address[:100]}",
                hint="start it with 'dask scheduler', then 'dask worker ADDRESS' on each machine",
            ) from None

    def close(self) -> None:
        self._client.close()

    def outcomes(self, jobs: Sequence[SessionJob], running: Running) -> Iterator[SessionOutcome]:
        """Submit ``jobs``; yield each outcome as it completes."""
        slots = max(1, sum(self._client.nthreads().values()))
        token = uuid.uuid4().hex
        futures = self._client.map(
            run_session, list(jobs), key=[f"streamer-run-{token}-{job.row}" for job in jobs]
        )
        pending = dict(zip(futures, jobs, strict=True))
        try:
            running(min(slots, len(pending)))
            for future in self._as_completed(futures, loop=self._client.loop):
                job = pending.pop(future)
                yield _outcome(job, future.result)
                running(min(slots, len(pending)))
        finally:
            self._client.cancel(list(pending))


def _outcome(job: SessionJob, result: Callable[[], Any]) -> SessionOutcome:
    try:
        outcome: SessionOutcome = result()
        return outcome
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as failure:  # the worker died or could not run the session
        return SessionOutcome(
            job.row,
            job.document_id,
            1,
            f"unexpected failure in the worker ({type(failure).__name__})",
            0.0,
            None,
            0,
        )


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ConfigurationError(
            "--scheduler needs Dask distributed, which is not installed",
            hint="pip install 'streamer[dask]', or use --workers N for a local pool",
        ) from None


def default_workers() -> int:
    """The default size of the local pool: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def session_jobs(sessions: int, workers: int, cores: int | None = None) -> int:
    """The ``--jobs`` of each session's run when a batch runs ``sessions`` on ``workers``
    local processes and ``cores`` CPUs (default: ``default_workers()``): the cores shared
    among the sessions that run at once, ``max(1, cores // min(workers, sessions))``."""
    at_once = max(1, min(workers, sessions))
    return max(1, min(MAX_JOBS, (cores or default_workers()) // at_once))

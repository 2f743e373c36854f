"""``streamer batch``: every session of a manifest, on a local pool or a Dask cluster."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.api.batch import BatchProgress
from streamer.cli import options
from streamer.cli.app import app


class BatchLine:
    """The progress line of a batch on a terminal: sessions done, failed and running."""

    def __init__(self) -> None:
        self._shown = False

    def __call__(self, state: BatchProgress) -> None:
        line = (
            f"streamer: batch {state.done} of {state.total} done, {state.failed} failed, "
            f"{state.running} running"
        )
        sys.stderr.write("\r" + line + "\x1b[K")
        sys.stderr.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@contextlib.contextmanager
def batch_progress(quiet: bool) -> Iterator[BatchLine | None]:
    if quiet or not sys.stderr.isatty():
        yield None
        return
    display = BatchLine()
    try:
        yield display
    finally:
        display.close()


@app.command("batch")
def batch_command(
    config: Path = options.CONFIG,
    manifest: Path = typer.Argument(
        ...,
        metavar="MANIFEST",
        help="CSV or JSON Lines: transcript, format, optional document_id; one session a row.",
        show_default=False,
    ),
    output_dir: Path = typer.Option(
        ..., "--output-dir", help="Where each session's DIR/<document_id>/ and batch.jsonl go."
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="Local worker processes; default: the CPU count."
    ),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="A running Dask distributed scheduler (tcp://HOST:PORT) instead of local workers.",
    ),
    lane: list[str] = options.LANE,
    quiet: bool = typer.Option(
        False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
    ),
) -> None:
    """Run every session of MANIFEST as 'streamer run' does, in parallel; one summary line
    per session in DIR/batch.jsonl, one JSON receipt line on stdout; exit status 4 when
    a session failed."""
    with batch_progress(quiet) as progress:
        result = api.batch(
            config,
            manifest,
            output_dir,
            workers=workers,
            scheduler=scheduler,
            lanes=lane,
            progress=progress,
        )
    typer.echo(orjson.dumps(result.receipt()).decode("utf-8"))
    for line in result.failed:
        print(
            f"streamer: error: session {line.document_id} (row {line.row}) failed: {line.error}",
            file=sys.stderr,
        )
    if result.exit_status:
        raise typer.Exit(result.exit_status)

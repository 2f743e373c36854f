"""``streamer batch``: every session of a manifest, on a local pool or a Dask cluster."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.notes_options import FORCE, NOTES, check_notes, write_notes
from streamer.cli.progress import StatusLine, on_terminal
from streamer.cli.receipts import print_result
from streamer.cli.summary import batch_summary

if TYPE_CHECKING:
    from streamer.api.batches import BatchProgress


class BatchLine(StatusLine):
    """The progress line of a batch on a terminal: sessions done, failed and running."""

    def __call__(self, state: BatchProgress) -> None:
        self.draw(
            f"streamer: batch {state.done} of {state.total} done, {state.failed} failed, "
            f"{state.running} running"
        )


@app.command("batch")
def batch_command(
    config: Path | None = typer.Option(
        None,
        "--config",
        help="The YAML configuration (streamer init writes one); default: the built-in "
        "configuration of streamer run (streamer config --show prints it).",
    ),
    manifest: Path = typer.Argument(
        ...,
        metavar="MANIFEST",
        help="CSV or JSON Lines: transcript, optional format and document_id; one session a row.",
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
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        help="Processes of each session's rules lanes, as streamer run --jobs (1 to 64); "
        "default: the CPU count shared among the sessions that run at once, "
        "max(1, CPUs // min(workers, sessions)); 1 on a scheduler. The output is the same.",
        show_default=False,
    ),
    glossary: Path | None = options.GLOSSARY,
    notes: Path | None = NOTES,
    force: bool = FORCE,
    lane: list[str] = options.LANE,
    model_url: str | None = options.MODEL_URL,
    model: str | None = options.MODEL,
    as_json: bool = options.JSON,
    quiet: bool = options.QUIET,
) -> None:
    """Run every session of MANIFEST as 'streamer run' does, in parallel; one summary line
    per session in DIR/batch.jsonl; a short summary on a terminal, else (or with --json)
    one JSON receipt line on stdout; exit status 4 when a session failed. With --notes,
    the campaign as a notes vault too (docs/campaign.md).

    Without --config every session runs with streamer run's built-in configuration: the
    built-in rules with no model; with a model server (--model-url and --model, or
    OPENAI_BASE_URL and OPENAI_MODEL) every kind's lane."""
    check_notes(notes, force=force)
    with on_terminal(quiet, BatchLine) as progress:
        result = api.batch(
            config,
            manifest,
            output_dir,
            workers=workers,
            scheduler=scheduler,
            lanes=lane,
            progress=progress,
            model_url=model_url,
            model=model,
            glossary=glossary,
            jobs=jobs,
        )
    write_notes(output_dir, notes, force=force)
    print_result(result, lambda: batch_summary(result, str(output_dir)), as_json=as_json)

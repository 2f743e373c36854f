"""``streamer run``: one transcript to a published bundle and its report."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import CommandFailed, app
from streamer.cli.import_command import FORMAT_NAMES
from streamer.cli.progress import showing_progress


@app.command("run")
def run_command(
    config: Path = options.CONFIG,
    transcript: Path = typer.Argument(
        ..., metavar="TRANSCRIPT", help="The transcript file.", show_default=False
    ),
    format_name: str = typer.Option(
        ...,
        "--format",
        help=f"The transcript's format, one of: {FORMAT_NAMES}.",
        show_default=False,
    ),
    output: Path = typer.Option(
        ...,
        "--output",
        help="The bundle folder to publish; the report is DIR.html, the work folder DIR.work.",
    ),
    document_id: str | None = typer.Option(
        None, "--document-id", help="The document ID; default: the transcript's file name stem."
    ),
    lane: list[str] = options.LANE,
    force: bool = typer.Option(
        False, "--force", help="Replace an existing bundle and report not made by this run."
    ),
    quiet: bool = options.QUIET,
) -> None:
    """Import, extract, normalize, bundle and report one transcript, resuming from the
    work folder; prints one JSON receipt line."""
    with showing_progress(quiet) as progress:
        result = api.run(
            config,
            transcript,
            format_name,
            output,
            document_id=document_id,
            lanes=lane,
            force=force,
            progress=progress,
        )
    typer.echo(orjson.dumps(result.receipt()).decode("utf-8"))
    if result.exit_status:
        raise CommandFailed(result.failures, result.exit_status)

"""``streamer chunk``: the extraction chunks of a source document, one JSON object a line."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


@app.command("chunk")
def chunk_command(
    config: Path = typer.Option(..., "--config", help="The YAML configuration file."),
    source: str = typer.Option(
        ..., "--source", help="The source document (JSON or JSON Lines), or - for stdin."
    ),
    output: str = typer.Option(
        "-", "--output", help="Where to write the chunks (JSON Lines); - (default) is stdout."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
    ),
) -> None:
    """Cut the source document into extraction chunks as configured in pipeline.chunking."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        api.chunk(configuration, source, output=output, progress=progress)

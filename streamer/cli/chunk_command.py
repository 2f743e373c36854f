"""``streamer chunk``: the extraction chunks of a source document, one JSON object a line."""

from __future__ import annotations

from pathlib import Path

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


@app.command("chunk")
def chunk_command(
    config: Path = options.CONFIG,
    source: str = options.SOURCE,
    output: str = options.output("the chunks (JSON Lines)"),
    quiet: bool = options.QUIET,
) -> None:
    """Cut the source document into extraction chunks as configured in pipeline.chunking."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        api.chunk(configuration, source, output=output, progress=progress)

"""``streamer bundle``: publish the JSON bundle folder."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress
from streamer.cli.receipts import print_receipt


@app.command("bundle")
def bundle_command(
    config: Path = options.CONFIG,
    source: str = options.SOURCE,
    lanes_dir: Path = options.LANES_DIR,
    lane: list[str] = options.LANE,
    output: Path = typer.Option(..., "--output", help="The bundle folder to create."),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing bundle folder (atomically)."
    ),
    jobs: int = options.JOBS,
    quiet: bool = options.QUIET,
) -> None:
    """Publish the bundle folder: index, lane payloads, chunk map and, when enabled, the
    evidence context. Prints one JSON receipt line."""
    api.require_standard_output()  # for the receipt, before anything is read
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        result = api.bundle(
            configuration,
            source,
            lanes_dir,
            output,
            lanes=lane,
            force=force,
            jobs=jobs,
            progress=progress,
        )
    print_receipt(result)

"""``streamer bundle``: publish the JSON bundle folder."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


@app.command("bundle")
def bundle_command(
    config: Path = typer.Option(..., "--config", help="The YAML configuration file."),
    source: str = typer.Option(
        ..., "--source", help="The source document (JSON or JSON Lines), or - for stdin."
    ),
    lanes_dir: Path = typer.Option(
        ..., "--lanes-dir", help="The folder holding <lane_id>.json normalized lane outputs."
    ),
    lane: list[str] = typer.Option(
        [], "--lane", help="Run only this lane (repeatable); the allowlist is still recorded."
    ),
    output: Path = typer.Option(..., "--output", help="The bundle folder to create."),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing bundle folder (atomically)."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
    ),
) -> None:
    """Publish the bundle folder: index, lane payloads, chunk map and, when enabled, the
    evidence context. Prints one JSON receipt line."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        result = api.bundle(
            configuration, source, lanes_dir, output, lanes=lane, force=force, progress=progress
        )
    typer.echo(orjson.dumps(result.receipt()).decode("utf-8"))

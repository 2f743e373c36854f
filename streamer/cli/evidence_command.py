"""``streamer evidence``: publish the evidence-context document."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


@app.command("evidence")
def evidence_command(
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
    output: str = typer.Option(
        "-", "--output", help="Where to write evidence-context.json; - (default) is stdout."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
    ),
) -> None:
    """Publish the evidence-context document for the allowlisted lanes."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        api.evidence(configuration, source, lanes_dir, lanes=lane, output=output, progress=progress)

"""``streamer normalize``: raw extraction candidates to normalized lane outputs."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress
from streamer.cli.receipts import print_receipt


@app.command("normalize")
def normalize_command(
    config: Path = options.CONFIG,
    source: str = options.SOURCE,
    candidates_dir: Path = typer.Option(
        ..., "--candidates-dir", help="The folder holding <lane_id>.jsonl candidates files."
    ),
    output_dir: Path = typer.Option(
        ...,
        "--output-dir",
        help="The folder to create: <lane_id>.json normalized lane outputs and rejections.jsonl.",
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="The glossary (YAML): party roster and name aliases; default: "
        "pipeline.normalization.glossary.",
    ),
    lane: list[str] = options.LANE,
    force: bool = typer.Option(
        False, "--force", help="Replace an existing output folder (atomically)."
    ),
    quiet: bool = options.QUIET,
) -> None:
    """Validate, ground, canonicalize and collapse each lane's candidates into its
    normalized lane output; rejections go to rejections.jsonl. Prints one JSON receipt."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        result = api.normalize(
            configuration,
            source,
            candidates_dir,
            output_dir,
            glossary=glossary,
            lanes=lane,
            force=force,
            progress=progress,
        )
    print_receipt(result)

"""Options shared by several commands, declared once so that they read the same everywhere."""

from __future__ import annotations

import typer

CONFIG = typer.Option(..., "--config", help="The YAML configuration file.")
SOURCE = typer.Option(
    ..., "--source", help="The source document (JSON or JSON Lines), or - for stdin."
)
LANES_DIR = typer.Option(
    ..., "--lanes-dir", help="The folder holding <lane_id>.json normalized lane outputs."
)
LANE = typer.Option(
    [], "--lane", help="Run only this lane (repeatable); the allowlist is still recorded."
)
QUIET = typer.Option(
    False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
)

"""Options shared by several commands, declared once so that they read the same everywhere."""

from __future__ import annotations

from pathlib import Path

import typer

CONFIG: Path = typer.Option(..., "--config", help="The YAML configuration file.")
SOURCE: str = typer.Option(
    ..., "--source", help="The source document (JSON or JSON Lines), or - for stdin."
)
LANES_DIR: Path = typer.Option(
    ..., "--lanes-dir", help="The folder holding <lane_id>.json normalized lane outputs."
)
LANE: list[str] = typer.Option(
    [], "--lane", help="Run only this lane (repeatable); the allowlist is still recorded."
)
JOBS: int = typer.Option(
    1,
    "--jobs",
    help="Processes that parse and validate the source's blocks: this one and N - 1 "
    "workers (1 to 64; default 1: this process alone). Raise it to the cores you have "
    "for a large source; the output is the same.",
)
RUN_JOBS: int = typer.Option(
    1,
    "--jobs",
    help="Processes that import a CRD3 transcript and answer the rules lanes' chunks (1 to "
    "64; default 1: this process alone; N: it and N - 1 workers). Raise it to the cores you "
    "have for a long session; the output is the same.",
)
MODEL_URL: str | None = typer.Option(
    None,
    "--model-url",
    help="Without --config: the model server's OpenAI-compatible root URL (e.g. "
    "http://localhost:11434/v1), which adds every kind's lane; default: $OPENAI_BASE_URL.",
    show_default=False,
)
MODEL: str | None = typer.Option(
    None,
    "--model",
    help="Without --config: the model's name on that server; default: $OPENAI_MODEL.",
    show_default=False,
)
GLOSSARY: Path | None = typer.Option(
    None,
    "--glossary",
    help="The glossary (streamer init writes one): the party (who plays whom), the names "
    "and spells as your group writes them; replaces the configuration's "
    "pipeline.normalization.glossary.",
    show_default=False,
)
JSON: bool = typer.Option(
    False,
    "--json",
    help="Print the JSON receipt even on a terminal (where a short summary is printed "
    "instead); elsewhere it is always the receipt.",
)
QUIET: bool = typer.Option(
    False, "--quiet", help="No progress line on stderr (it is shown only on a terminal)."
)


def output(what: str) -> str:
    """``--output FILE|-`` of a command that writes one document, ``what``."""
    written: str = typer.Option(
        "-",
        "--output",
        help=f"Where to write {what}: a file (published atomically; a device or FIFO is "
        "written in place), or - (default) for stdout.",
    )
    return written

"""``streamer config --show`` and ``streamer init``: the configuration a person starts from."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app


@app.command("config")
def config_command(
    show: bool = typer.Option(
        False, "--show", help="Print the effective configuration as commented YAML."
    ),
    config: Path | None = typer.Option(
        None, "--config", help="The configuration file; default: the built-in configuration."
    ),
    model_url: str | None = options.MODEL_URL,
    model: str | None = options.MODEL,
) -> None:
    """Print the configuration streamer run uses (the built-in one without --config), as
    YAML with every key commented: save it, edit it, give it with --config."""
    if not show:
        raise typer.BadParameter("say what to do: --show", param_hint="streamer config")
    effective = api.effective_config(config, model_url, model)
    typer.echo(effective.text, nl=False)


@app.command("init")
def init_command(
    folder: Path = typer.Argument(
        Path("."), metavar="[DIR]", help="Where to write them (default: here).", show_default=False
    ),
) -> None:
    """Write streamer.yaml (the built-in configuration, every key explained, with a
    glossary) and glossary.yaml (a template) into DIR; never replaces a file."""
    written = api.init_folder(folder)
    for path in written:
        typer.echo(str(path))

"""The typer application that every command module registers with."""

from __future__ import annotations

import typer

import streamer

app = typer.Typer(
    name="streamer",
    help="Publish evidence-grounded session bundles from transcripts, streaming.",
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

DEBUG_HELP = "Print a traceback above any error message (anywhere on the line)."
_debug = {"on": False}


def debugging() -> bool:
    """Whether ``--debug`` was given (before or after the command)."""
    return _debug["on"]


def set_debugging(value: bool) -> None:
    if value:
        _debug["on"] = True


def _version(value: bool) -> None:
    if value:
        typer.echo(f"streamer {streamer.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(
        False, "--debug", help=DEBUG_HELP, callback=set_debugging, is_eager=True
    ),
    version: bool = typer.Option(
        False,
        "--version",
        help="Print streamer's version and exit.",
        callback=_version,
        is_eager=True,
    ),
) -> None:
    """Publish evidence-grounded session bundles from transcripts, streaming."""

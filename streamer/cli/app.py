"""The typer application that every command module registers with."""

from __future__ import annotations

from collections.abc import Sequence

import typer

import streamer
from streamer.framework.errors.types import ExitStatus

app = typer.Typer(
    name="streamer",
    add_completion=True,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

DEBUG_HELP = "Print a traceback above any error message (anywhere on the line)."
_debug = {"on": False}


class CommandFailed(Exception):
    """Raised by a command that wrote what it could but failed in part (a lane, a session,
    a bundle's problems): the entry point prints each line as ``streamer: error: ...`` and
    exits with ``status``, as it does for every other error."""

    def __init__(self, lines: Sequence[str], status: ExitStatus) -> None:
        super().__init__(status)
        self.lines = tuple(lines)
        self.status = status


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
    """Start here: streamer run session.vtt --output out/session

    That one command publishes a transcript's bundle (out/session/) and its report
    (out/session.html), with no configuration: the built-in rules, and every kind's lane
    when a model server is named (streamer run --help). streamer turns a TTRPG transcript
    into small evidence-grounded records, each citing the transcript units it rests on."""

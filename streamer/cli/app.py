"""The typer application that every command module registers with."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="streamer",
    help="Publish evidence-grounded session bundles from transcripts, streaming.",
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    debug: bool = typer.Option(
        False, "--debug", help="Print a traceback above any error message (anywhere on the line)."
    ),
) -> None:
    """Publish evidence-grounded session bundles from transcripts, streaming."""

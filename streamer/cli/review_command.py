"""``streamer review``: the game master accepts or rejects a bundle's records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import typer
from typer.core import TyperCommand

from streamer.api.reviews import review
from streamer.cli.app import app
from streamer.cli.receipts import print_receipt
from streamer.cli.review_warning import stale_line

_NOTES = "notes"


class _NotedCommand(TyperCommand):
    """The command with ``--note ID TEXT``, a repeatable two-value option that typer does
    not declare: click parses it, and the command reads it from ``context.meta``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        note = click.Option(
            ["--note", _NOTES],
            nargs=2,
            multiple=True,
            metavar="ID TEXT",
            help="A note on a record this review accepts or rejects (repeatable; an empty "
            "TEXT removes it).",
        )
        self.params.append(note)

    def invoke(self, ctx: click.Context) -> Any:
        ctx.meta[_NOTES] = [tuple(pair) for pair in ctx.params.pop(_NOTES, ())]
        return super().invoke(ctx)


@app.command("review", cls=_NotedCommand)
def review_command(
    context: typer.Context,
    bundle_dir: Path = typer.Argument(..., metavar="BUNDLE_DIR", help="The bundle folder."),
    accept: list[str] = typer.Option(
        [], "--accept", metavar="ID", help="Accept the record ID (repeatable)."
    ),
    reject: list[str] = typer.Option(
        [], "--reject", metavar="ID", help="Reject the record ID (repeatable)."
    ),
) -> None:
    """Write the game master's review of the bundle in BUNDLE_DIR: BUNDLE_DIR.review.json
    beside it, keeping its earlier marks; prints a JSON receipt. streamer report shows it
    (rejected records struck through)."""
    result = review(bundle_dir, accept=accept, reject=reject, notes=context.meta[_NOTES])
    if result.stale:
        typer.echo(stale_line(result.stale, str(result.path)), err=True)
    print_receipt(result)

"""``streamer review``: the game master accepts or rejects a bundle's records."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer.api.reviews import review
from streamer.cli.app import app
from streamer.cli.receipts import print_receipt
from streamer.framework.errors.types import ConfigurationError


def stale_line(stale: list[str] | tuple[str, ...], path: str) -> str:
    """The one stderr line naming a review's marks of records the bundle no longer has."""
    count = len(stale)
    return (
        f"streamer: warning: {path}: {count} reviewed record{'s are' if count > 1 else ' is'} "
        f"no longer in the bundle: {', '.join(stale)}"
    )


def _notes(extra: list[str]) -> list[tuple[str, str]]:
    """The ``--note ID TEXT`` pairs (typer takes no repeatable two-value option: click
    leaves them to the command)."""
    notes: list[tuple[str, str]] = []
    rest = list(extra)
    while rest:
        if rest[0] != "--note" or len(rest) < 3:
            word = "--note" if rest[0] == "--note" else "an argument"
            raise ConfigurationError(
                f"{word} takes an ID and a TEXT" if word == "--note" else "unexpected argument",
                hint="streamer review --help",
            )
        notes.append((rest[1], rest[2]))
        rest = rest[3:]
    return notes


@app.command("review", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
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
    (rejected records struck through). --note ID TEXT (repeatable) notes a record this
    review accepts or rejects (an empty TEXT removes the note)."""
    result = review(bundle_dir, accept=accept, reject=reject, notes=_notes(context.args))
    if result.stale:
        typer.echo(stale_line(result.stale, str(result.path)), err=True)
    print_receipt(result)

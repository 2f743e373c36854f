"""``streamer campaign``: the campaign registry and page of a batch output folder."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.notes_options import FORCE, NOTES, check_notes, write_notes
from streamer.cli.receipts import print_receipt


@app.command("campaign")
def campaign_command(
    directory: Path = typer.Argument(
        ..., metavar="DIR", help="A streamer batch output folder (its batch.jsonl and bundles)."
    ),
    config: Path | None = typer.Option(
        None, "--config", help="The configuration the batch ran with (for its glossary)."
    ),
    glossary: Path | None = options.GLOSSARY,
    notes: Path | None = NOTES,
    force: bool = FORCE,
) -> None:
    """Write DIR/campaign.registry.json (one entry per NPC, place and item across the
    sessions, the spells cast by each character, each citing its records) and, from it, the
    campaign page DIR/index.html; reads the session bundles, never the transcripts. Prints
    a JSON receipt. With --notes, the campaign as a notes vault too (docs/campaign.md)."""
    check_notes(notes, force=force)
    api.require_standard_output()
    result = api.campaign_folder(directory, config=config, glossary=glossary)
    vault = write_notes(directory, notes, force=force)
    print_receipt(result if vault is None else _WithNotes({**result.receipt(), **vault.receipt()}))


class _WithNotes:
    def __init__(self, receipt: dict[str, object]) -> None:
        self._receipt = receipt

    def receipt(self) -> dict[str, object]:
        return self._receipt

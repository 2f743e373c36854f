"""``streamer campaign``: the campaign registry and page of a batch output folder."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.api.players_campaign import players_campaign
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.notes_options import FORCE, NOTES, check_notes, write_notes
from streamer.cli.receipts import print_receipt
from streamer.framework.audience import GAME_MASTER, PLAYERS
from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import ConfigurationError


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
    audience: str = typer.Option(
        "game-master",
        "--audience",
        help="players: write what the players may see instead (each session's players "
        "page DIR/ID.players.html, DIR/campaign.players.registry.json and the campaign page "
        "DIR/players.html; the glossary's secrets and the configuration's game-master lanes "
        "left out); --notes then writes the players' vault.",
    ),
) -> None:
    """Write DIR/campaign.registry.json (one entry per NPC, place and item across the
    sessions, the spells cast by each character, each citing its records) and, from it, the
    campaign page DIR/index.html; reads the session bundles, never the transcripts. Prints
    a JSON receipt. With --notes, the campaign as a notes vault too (docs/campaign.md)."""
    check_notes(notes, force=force)
    api.require_standard_output()
    if audience == PLAYERS:
        players = players_campaign(directory, config=config, glossary=glossary)
        vault = write_notes(directory, notes, force=force, registry=players.registry)
        receipt = players.receipt()
        print_receipt(_WithNotes(receipt if vault is None else {**receipt, **vault.receipt()}))
        return
    if audience != GAME_MASTER:
        raise ConfigurationError(
            f"--audience {quoted(audience)} is not an audience", hint="game-master or players"
        )
    result = api.campaign_folder(directory, config=config, glossary=glossary)
    vault = write_notes(directory, notes, force=force)
    print_receipt(result if vault is None else _WithNotes({**result.receipt(), **vault.receipt()}))


class _WithNotes:
    def __init__(self, receipt: dict[str, object]) -> None:
        self._receipt = receipt

    def receipt(self) -> dict[str, object]:
        return self._receipt

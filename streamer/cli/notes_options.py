"""``--notes DIR`` and ``--force`` (``streamer batch``, ``streamer campaign``): the notes
vault of the campaign registry, written after it; the notes kept (edited by a person)
named in one line on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from streamer import api
from streamer.framework.errors.types import ConfigurationError
from streamer.output.campaign_registry import REGISTRY_FILE

NOTES: Path | None = typer.Option(
    None,
    "--notes",
    help="Also write the campaign as a notes vault into this folder: one Markdown note per "
    "session, NPC, place and item, with [[wiki links]] (Obsidian); only changed notes are "
    "rewritten.",
)
FORCE: bool = typer.Option(
    False, "--force", help="With --notes: replace the notes a person edited (else kept)."
)


def check_notes(notes: Path | None, *, force: bool) -> None:
    """Before anything runs: ``--force`` is for ``--notes``."""
    if notes is None and force:
        raise ConfigurationError("--force replaces notes: give --notes DIR with it")


def write_notes(
    folder: Path, notes: Path | None, *, force: bool, registry: Path | None = None
) -> api.VaultResult | None:
    """The vault of ``folder``'s registry (or ``registry``) into ``notes`` (``None``: no
    vault)."""
    if notes is None:
        return None
    result = api.write_vault(registry or folder / REGISTRY_FILE, notes, force=force)
    line = result.kept_line()
    if line is not None and sys.stderr is not None:
        print(line, file=sys.stderr)
    return result

"""``--notes DIR`` (``streamer batch``, ``streamer campaign DIR``): the campaign as a notes
vault, Markdown notes a person keeps in Obsidian or a similar app (docs/campaign.md).

    api.write_vault("out/campaign.registry.json", "notes/")
    api.write_vault("out/campaign.registry.json", "notes/", force=True)

One note per session and one per NPC, place and item of the registry, linked both ways
with ``[[wiki links]]``, each fact linking to its evidence in the session's report. Only
the notes whose bytes changed are written; a note a person edited is kept (named in
``VaultResult.kept``) unless ``force``. Also the ``notes`` campaign output of the
``streamer.outputs`` group (``NOTES``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import msgspec

from streamer.api.campaigns import section_titles
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.output.campaign_registry import read_registry
from streamer.output.modules import CampaignOutput
from streamer.output.vault_files import VaultChanges, update_vault
from streamer.output.vault_notes import vault_notes


@dataclass(frozen=True)
class VaultResult:
    folder: Path
    changes: VaultChanges

    @property
    def kept(self) -> tuple[str, ...]:
        return self.changes.kept

    def kept_line(self) -> str | None:
        """The one line that names the notes kept (file names only), or ``None``."""
        if not self.kept:
            return None
        return (
            "streamer: notes kept, edited since streamer wrote them (--force replaces them): "
            + ", ".join(self.kept)
        )

    def receipt(self) -> dict[str, object]:
        return {
            "notes": len(self.changes.written) + len(self.changes.unchanged),
            "written": len(self.changes.written),
            "kept": len(self.changes.kept),
            "removed": len(self.changes.removed),
        }


def _reports(registry: Path, notes: Path) -> str:
    """The registry's folder seen from a note's folder (one below the vault's root)."""
    relative = os.path.relpath(registry.resolve().parent, (notes.resolve() / "sessions"))
    return Path(relative).as_posix()


def write_vault(
    registry_path: str | os.PathLike[str],
    notes_dir: str | os.PathLike[str],
    *,
    force: bool = False,
) -> VaultResult:
    """Write the notes vault of the campaign registry file ``registry_path`` into
    ``notes_dir`` (created when missing); ``force``: replace notes a person edited."""
    registry_file, folder = Path(registry_path), Path(notes_dir)
    if os.path.lexists(folder) and not folder.is_dir():
        raise ConfigurationError(f"--notes {shown_path(folder)} is not a folder")
    try:
        registry = read_registry(registry_file)
    except FileNotFoundError:
        raise ConfigurationError(
            f"--notes: no campaign registry {shown_path(registry_file)}",
            hint="streamer campaign DIR writes it",
        ) from None
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise InputError(
            f"--notes: {shown_path(registry_file)} is not a campaign registry"
        ) from None
    notes = vault_notes(registry, _reports(registry_file, folder), section_titles())
    folder.mkdir(parents=True, exist_ok=True)
    return VaultResult(folder, update_vault(folder, notes, force=force))


def _write_notes(registry: Path, destination: Path, *, force: bool) -> VaultResult:
    return write_vault(registry, destination, force=force)


NOTES = CampaignOutput(
    "notes",
    "the campaign as a notes vault: Markdown notes with wiki links (docs/campaign.md)",
    _write_notes,
)

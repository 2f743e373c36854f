"""``streamer campaign DIR --audience players``: the campaign as the players may see it,
beside the game master's, from the session bundles and the glossary's ``secrets``.

    api.players_campaign("out/", glossary="glossary.yaml")
    # wrote out/ID.players.html for each session, out/campaign.players.registry.json
    # and out/players.html

Each session's players page is ``streamer report --audience players``'s; the registry is
``output.registry_audience``'s view of the campaign's (the game master's registry and
pages are not changed), and the campaign page and notes vault are written from it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from streamer.api.campaigns import section_titles
from streamer.api.config import default_registry, effective_config, with_glossary
from streamer.api.output_destinations import publish_to
from streamer.api.registries import batch_lines, registry_of
from streamer.api.reports import audience_view, report
from streamer.framework.audience import PLAYERS
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.output.campaign_registry import CampaignRegistry, registry_bytes
from streamer.output.publication import atomic_file
from streamer.output.registry_audience import players_registry
from streamer.report.campaign import write_campaign

PLAYERS_REGISTRY = "campaign.players.registry.json"
PLAYERS_PAGE = "players.html"
PLAYERS_REPORT = "{}.players.html"


@dataclass(frozen=True)
class PlayersCampaignResult:
    registry: Path
    page: Path
    sessions: int
    entries: int

    def receipt(self) -> dict[str, object]:
        return {
            "status": "ok",
            "audience": PLAYERS,
            "registry": self.registry.name,
            "campaign": self.page.name,
            "sessions": self.sessions,
            "entries": self.entries,
        }


def players_campaign(
    folder: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | None = None,
    glossary: str | os.PathLike[str] | None = None,
) -> PlayersCampaignResult:
    """Write the players' pages of ``folder`` (a ``streamer batch`` output folder): each
    session's, the registry they may see and its campaign page; the glossary (of
    ``config`` or ``glossary``) names the secrets, ``config`` the game master's lanes."""
    given = with_glossary(effective_config(config, None, None), glossary)
    terms = given.config.normalization.glossary
    root = Path(folder)
    if terms is None:
        raise ConfigurationError(
            f"campaign {shown_path(root)} --audience players needs the glossary that names "
            "the secrets",
            hint="add --glossary FILE (its secrets: section), or --config FILE naming it",
        )
    lanes = given.config.game_master_lanes()
    kinds = default_registry()
    view = audience_view(PLAYERS, terms, kinds, lanes)
    registry = registry_of(root, batch_lines(root), terms)
    reports: dict[str, str] = {}
    for session in registry.sessions:
        if session.bundle is None or session.report is None:
            continue
        page = PLAYERS_REPORT.format(session.session_id)
        report(
            root / session.bundle,
            output=root / page,
            glossary=terms,
            audience=PLAYERS,
            game_master_lanes=lanes,
        )
        reports[session.session_id] = page
    shown = players_registry(registry, view, reports)
    return _publish(root, shown)


def _publish(root: Path, shown: CampaignRegistry) -> PlayersCampaignResult:
    path = root / PLAYERS_REGISTRY
    with atomic_file(path) as out:
        out.write(registry_bytes(shown))
    page = root / PLAYERS_PAGE
    title = f"Campaign: {root.resolve().name}"

    def write(out: IO[bytes]) -> None:
        write_campaign(title, shown, out, section_titles())

    publish_to(page, write)
    return PlayersCampaignResult(path, page, len(reports_of(shown)), len(shown.entries))


def reports_of(registry: CampaignRegistry) -> list[str]:
    return [session.report for session in registry.sessions if session.report is not None]

"""``streamer campaign DIR``: the campaign registry and the campaign page of a
``streamer batch`` output folder, from its session bundles alone (``streamer batch``
writes both at the end of every run).

    api.campaign_folder("out/", config="streamer.yaml")
    # wrote out/campaign.registry.json and out/index.html

The glossary is the configuration's (``--config``), or ``glossary`` (``--glossary``),
the one the batch ran with: it says who is the party and which names are one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from streamer.api.campaigns import CAMPAIGN_FILE, CampaignResult, campaign
from streamer.api.config import effective_config, with_glossary
from streamer.api.registries import RegistryResult, campaign_registry


@dataclass(frozen=True)
class CampaignFolderResult:
    registry: RegistryResult
    page: CampaignResult | None  # None: a session's report is named index.html

    def receipt(self) -> dict[str, object]:
        return {
            **self.registry.receipt(),
            "campaign": None if self.page is None else self.page.page.name,
        }


def campaign_folder(
    folder: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | None = None,
    glossary: str | os.PathLike[str] | None = None,
) -> CampaignFolderResult:
    """Write ``folder/campaign.registry.json`` and, from it, ``folder/index.html``; the
    glossary of ``config`` (a configuration file) or ``glossary``."""
    given = with_glossary(effective_config(config, None, None), glossary)
    terms = given.config.normalization.glossary
    root = Path(folder)
    registry = campaign_registry(root, glossary=terms)
    page = None
    if all(s.session_id + ".html" != CAMPAIGN_FILE for s in registry.registry.sessions):
        page = campaign(root, glossary=terms, registry=registry.registry)
    return CampaignFolderResult(registry, page)

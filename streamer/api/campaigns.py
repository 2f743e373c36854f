"""``streamer report --campaign DIR``: one ``index.html`` over a ``streamer batch`` output
folder, beside the session reports, written from the campaign registry.

    api.campaign("out/")          # writes out/index.html

The sessions are the lines of ``DIR/batch.jsonl`` (manifest order); the page shows the
campaign registry of their bundles (``api.campaign_registry``: built here when not given),
with the glossary's identity of names (docs/campaign.md). A session whose bundle was read
and whose report ``DIR/ID.html`` exists is linked; any other is listed with its status.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from streamer.api.batch_summary import SUMMARY_FILE as BATCH_SUMMARY
from streamer.api.config import default_registry
from streamer.api.output_destinations import publish_to
from streamer.api.registries import batch_lines, registry_of
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.campaign_spec import CampaignCasts
from streamer.output.campaign_registry import CampaignRegistry
from streamer.report.campaign import CASTS_SECTION, CampaignSummary, write_campaign

CAMPAIGN_FILE = "index.html"
__all__ = ["BATCH_SUMMARY", "CAMPAIGN_FILE", "CampaignResult", "campaign", "section_titles"]


@dataclass(frozen=True)
class CampaignResult:
    page: Path
    summary: CampaignSummary

    def receipt(self) -> dict[str, object]:
        return {
            "status": "ok",
            "campaign": self.page.name,
            "sessions": self.summary.sessions,
            "linked": self.summary.linked,
            "lanes": self.summary.lanes,
        }


def section_titles() -> dict[str, str]:
    """What a person reads for each registry section of the installed kinds (and casts)."""
    titles: dict[str, str] = {}
    for kind in default_registry():
        spec = kind.campaign
        if spec is None or not spec.title:
            continue
        section = CASTS_SECTION if isinstance(spec, CampaignCasts) else spec.section
        titles.setdefault(section, spec.title)
    return titles


def campaign(
    folder: str | os.PathLike[str],
    *,
    glossary: str | os.PathLike[str] | None = None,
    registry: CampaignRegistry | None = None,
) -> CampaignResult:
    """Write ``folder/index.html``: the campaign page of a ``streamer batch`` output folder
    (``registry``: its registry, when already built, else built here, not written)."""
    root = Path(folder)
    lines = batch_lines(root)
    if any(line.document_id + ".html" == CAMPAIGN_FILE for line in lines):
        raise ConfigurationError(
            f"--campaign {shown_path(root)}: a session's report is named {CAMPAIGN_FILE}",
            hint="rename that session (its document_id) to write the campaign page",
        )
    if registry is None:
        registry = registry_of(root, lines, glossary)
    page = root / CAMPAIGN_FILE
    summary: list[CampaignSummary] = []
    title = f"Campaign: {root.resolve().name}"
    publish_to(
        page, lambda out: summary.append(write_campaign(title, registry, out, section_titles()))
    )
    return CampaignResult(page, summary[0])

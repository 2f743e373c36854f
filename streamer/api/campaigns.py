"""``streamer report --campaign DIR``: one ``index.html`` over a ``streamer batch`` output
folder, beside the session reports.

    api.campaign("out/")          # writes out/index.html

The sessions are the lines of ``DIR/batch.jsonl`` (manifest order). A session whose bundle
``DIR/ID/`` is valid and whose report ``DIR/ID.html`` exists is linked; any other is listed
with its status. Names are compared by the glossary's identity (its canonical name for an
alias, then the name key: case, apostrophes and spacing ignored).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec
import orjson

from streamer.api.config import default_registry
from streamer.api.output_destinations import publish_to
from streamer.api.validation import validate_bundle
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.names import name_key
from streamer.normalization.glossary import Glossary, load_glossary
from streamer.output.bundle_documents import INDEX_FILE
from streamer.report.campaign import CampaignSession, CampaignSummary, write_campaign
from streamer.report.evidence_stream import session_units
from streamer.report.lane_tables import lane_table

CAMPAIGN_FILE = "index.html"
BATCH_SUMMARY = "batch.jsonl"  # streamer.api.batches.SUMMARY_FILE (which imports this module)


class _Line(msgspec.Struct):
    row: int
    document_id: str
    status: str


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


def _lines(folder: Path) -> list[_Line]:
    path = folder / BATCH_SUMMARY
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigurationError(
            f"--campaign {shown_path(folder)}: no {BATCH_SUMMARY} in it",
            hint="give the --output-dir of a streamer batch run",
        ) from None
    except NotADirectoryError:
        raise ConfigurationError(f"--campaign {shown_path(folder)} is not a folder") from None
    lines = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append(msgspec.json.decode(raw, type=_Line))
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise InputError(
                f"--campaign {shown_path(folder)}: {BATCH_SUMMARY} line {number} "
                "is not a batch line"
            ) from None
    return sorted(lines, key=lambda line: line.row)


def _identity(glossary: Glossary) -> Callable[[str], str]:
    def identity(name: str) -> str:
        return name_key(glossary.names.canonical(name))

    return identity


def campaign(
    folder: str | os.PathLike[str], *, glossary: str | os.PathLike[str] | None = None
) -> CampaignResult:
    """Write ``folder/index.html``: the campaign page of a ``streamer batch`` output folder."""
    root = Path(folder)
    lines = _lines(root)
    if any(line.document_id + ".html" == CAMPAIGN_FILE for line in lines):
        raise ConfigurationError(
            f"--campaign {shown_path(root)}: a session's report is named {CAMPAIGN_FILE}",
            hint="rename that session (its document_id) to write the campaign page",
        )
    registry = default_registry()
    sections = {
        spec.glossary_section
        for kind in registry
        if (spec := kind.normalization) is not None and spec.glossary_section is not None
    }
    terms = Glossary() if glossary is None else load_glossary(Path(glossary), sections)
    sessions = []
    for line in lines:
        bundle = root / line.document_id
        report = root / f"{line.document_id}.html"
        if line.status == "failed" or not report.is_file() or not validate_bundle(bundle).valid:
            sessions.append(CampaignSession(line.document_id, line.status, None))
            continue
        index = orjson.loads((bundle / INDEX_FILE).read_bytes())
        chunk_map = index.get("chunk_map")
        sessions.append(
            CampaignSession(
                line.document_id,
                line.status,
                report.name,
                None if chunk_map is None else session_units(bundle / chunk_map["file"]),
                [lane_table(bundle, descriptor, registry) for descriptor in index["lanes"]],
            )
        )
    page = root / CAMPAIGN_FILE
    summary: list[CampaignSummary] = []
    publish_to(
        page,
        lambda out: summary.append(
            write_campaign(f"Campaign: {root.resolve().name}", sessions, out, _identity(terms))
        ),
    )
    return CampaignResult(page, summary[0])

"""``streamer campaign DIR``: the campaign registry (``DIR/campaign.registry.json``) of a
``streamer batch`` output folder, built from its session bundles alone.

    api.campaign_registry("out/")                      # writes out/campaign.registry.json
    api.campaign_registry("out/", glossary="glossary.yaml")

The sessions are the lines of ``DIR/batch.jsonl``, in manifest order (their ``row``): a
session that completed (``ok`` or ``skipped``) and whose bundle ``DIR/ID/`` has an index
is read; its report is ``DIR/ID.html`` when that file exists. A session no longer in the
manifest is no longer in ``batch.jsonl``, so it leaves no trace. ``streamer batch`` writes
the registry at the end of every run, with its configuration's glossary.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from streamer.api.batch_summary import COMPLETE
from streamer.api.batch_summary import SUMMARY_FILE as BATCH_SUMMARY
from streamer.api.config import default_registry
from streamer.api.reviews import load_review
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.names import name_key
from streamer.normalization.glossary import PARTY, Glossary, load_glossary
from streamer.output.campaign_registry import (
    REGISTRY_FILE,
    CampaignRegistry,
    registry_bytes,
)
from streamer.output.publication import atomic_file
from streamer.output.registry_builder import RegistryNames, SessionSource, build_registry


class BatchLine(msgspec.Struct):
    """What the registry and the campaign page read of a ``batch.jsonl`` line."""

    row: int
    document_id: str
    status: str


@dataclass(frozen=True)
class RegistryResult:
    path: Path
    registry: CampaignRegistry

    def receipt(self) -> dict[str, object]:
        sections: dict[str, int] = {}
        for entry in self.registry.entries:
            sections[entry.section] = sections.get(entry.section, 0) + 1
        return {
            "status": "ok",
            "registry": self.path.name,
            "sessions": len(self.registry.sessions),
            "published": sum(1 for s in self.registry.sessions if s.status == "published"),
            "entries": dict(sorted(sections.items())),
            "casters": len(self.registry.casters),
        }


def batch_lines(folder: Path, option: str = "--campaign") -> list[BatchLine]:
    """The lines of ``folder/batch.jsonl`` in manifest order; ``option`` names the folder
    in messages."""
    path = folder / BATCH_SUMMARY
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigurationError(
            f"{option} {shown_path(folder)}: no {BATCH_SUMMARY} in it",
            hint="give the --output-dir of a streamer batch run",
        ) from None
    except NotADirectoryError:
        raise ConfigurationError(f"{option} {shown_path(folder)} is not a folder") from None
    lines = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append(msgspec.json.decode(raw, type=BatchLine))
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise InputError(
                f"{option} {shown_path(folder)}: {BATCH_SUMMARY} line {number} is not a batch line"
            ) from None
    return sorted(lines, key=lambda line: line.row)


def glossary_sections() -> set[str]:
    """The glossary sections of the installed kinds (``party``)."""
    return {
        spec.glossary_section
        for kind in default_registry()
        if (spec := kind.normalization) is not None and spec.glossary_section is not None
    }


def registry_names(terms: Glossary) -> RegistryNames:
    """The glossary as the registry builder reads it."""
    names = terms.names
    keys = {key for key, _ in names.items()}
    party: list[str] = [
        entry["character"]
        for entry in terms.sections.get(PARTY, [])
        if isinstance(entry, dict) and isinstance(entry.get("character"), str)
    ]
    return RegistryNames(names.canonical, lambda name: name_key(name) in keys, party)


def session_sources(root: Path, lines: Collection[BatchLine]) -> list[SessionSource]:
    """The sessions ``lines`` lists, each with the records its review rejects (the game
    master's review beside its bundle, ``streamer review``): those stay out of the
    registry, and so out of the campaign page and the vault."""
    sources = []
    for line in lines:
        published = line.status in COMPLETE and (root / line.document_id / "index.json").is_file()
        report = f"{line.document_id}.html"
        review = load_review(root / line.document_id) if published else None
        sources.append(
            SessionSource(
                line.document_id,
                line.status,
                line.document_id if published else None,
                report if published and (root / report).is_file() else None,
                frozenset() if review is None else review.rejected_ids(),
            )
        )
    return sources


def registry_of(
    root: Path, lines: Sequence[BatchLine], glossary: str | os.PathLike[str] | None
) -> CampaignRegistry:
    """The registry of the sessions ``lines`` lists, under ``root``."""
    terms = Glossary() if glossary is None else load_glossary(Path(glossary), glossary_sections())
    return build_registry(
        root, session_sources(root, lines), default_registry(), registry_names(terms)
    )


def campaign_registry(
    folder: str | os.PathLike[str],
    *,
    glossary: str | os.PathLike[str] | None = None,
    option: str = "DIR",
) -> RegistryResult:
    """Write ``folder/campaign.registry.json``: the registry of the sessions of a
    ``streamer batch`` output folder (``glossary``: the glossary the batch ran with)."""
    root = Path(folder)
    lines = batch_lines(root, option)
    if any(line.document_id == REGISTRY_FILE for line in lines):
        raise ConfigurationError(
            f"{option} {shown_path(root)}: a session's bundle is named {REGISTRY_FILE}",
            hint="rename that session (its document_id) to write the registry",
        )
    registry = registry_of(root, lines, glossary)
    path = root / REGISTRY_FILE
    data = registry_bytes(registry)
    with atomic_file(path) as out:
        out.write(data)
    return RegistryResult(path, registry)

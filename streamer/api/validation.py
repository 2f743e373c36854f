"""``streamer validate``: checking a published bundle, as a consumer (or the report) would."""

from __future__ import annotations

import os
from pathlib import Path

from streamer.api.config import default_registry
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.validation import BundleReport, validate
from streamer.validation.evidence_units import EvidenceSeen
from streamer.validation.registry_check import RegistryReport, check_registry

__all__ = ["BundleReport", "RegistryReport", "validate_bundle", "validate_registry"]


def validate_bundle(
    folder: str | os.PathLike[str],
    registry: ArtifactKindRegistry | None = None,
    seen: EvidenceSeen | None = None,
) -> BundleReport:
    """Check the bundle in ``folder`` as a consumer would; the report lists every problem
    (``report.valid`` when there is none). Raises ``ConfigurationError`` when ``folder``
    is not a folder. Reads the bundle as a stream: memory stays flat however large its
    evidence document. ``registry`` knows the kinds of its lanes (default: every installed
    kind, plugins' included: the registry ``bundle`` used). ``seen`` is told the evidence
    document's units and contexts as they are checked (``report`` writes its page from
    them, once the bundle is found valid)."""
    return validate(Path(folder), registry or default_registry(), seen)


def validate_registry(path: str | os.PathLike[str]) -> RegistryReport:
    """Check the campaign registry file at ``path`` (``campaign.registry.json``) against its
    schema and its documented orders; the report lists every problem."""
    return check_registry(Path(path))

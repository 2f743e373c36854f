"""The configuration and the registry of artifact kinds the API works with."""

from __future__ import annotations

import os
from pathlib import Path

from streamer.configuration import Configuration, load_configuration
from streamer.framework.kinds.registry import ArtifactKindRegistry


def default_registry() -> ArtifactKindRegistry:
    """A new registry with every installed artifact kind: those of every ``streamer.kinds``
    plugin, streamer's own D&D kinds (v1) among them (``docs/plugins.md``)."""
    return ArtifactKindRegistry.installed()


def load_config(
    path: str | os.PathLike[str], registry: ArtifactKindRegistry | None = None
) -> Configuration:
    """The configuration in ``path``, its lanes resolved against ``registry`` (default: every
    installed kind)."""
    return load_configuration(Path(path), registry or default_registry())

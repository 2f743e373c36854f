"""The configuration and the registry of artifact kinds the API works with."""

from __future__ import annotations

import os
from pathlib import Path

from streamer.configuration import Configuration, load_configuration
from streamer.domain import dnd
from streamer.framework.kinds.registry import ArtifactKindRegistry


def default_registry() -> ArtifactKindRegistry:
    """The registry with every artifact kind streamer ships (the D&D kinds, v1)."""
    registry = ArtifactKindRegistry()
    dnd.register(registry)
    return registry


def load_config(
    path: str | os.PathLike[str], registry: ArtifactKindRegistry | None = None
) -> Configuration:
    """The configuration in ``path``, its lanes resolved against ``registry`` (default: the
    kinds streamer ships)."""
    return load_configuration(Path(path), registry or default_registry())

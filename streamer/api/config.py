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


def load_config(path: str | os.PathLike[str]) -> Configuration:
    return load_configuration(Path(path), default_registry())

"""Configuration: the YAML file, resolved against the artifact-kind registry."""

from streamer.configuration.model import (
    ChunkingConfig,
    Configuration,
    EvidenceContextConfig,
    LaneConfig,
    NormalizationConfig,
)
from streamer.configuration.resolve import load_configuration, resolve_configuration

__all__ = [
    "ChunkingConfig",
    "Configuration",
    "EvidenceContextConfig",
    "LaneConfig",
    "NormalizationConfig",
    "load_configuration",
    "resolve_configuration",
]

"""The resolved configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamer.configuration.extraction_settings import ExtractionConfig
from streamer.framework.kinds.registry import ArtifactKind

DEFAULT_WINDOW_UNITS = 3
DEFAULT_MAX_UNITS = 100
DEFAULT_OVERLAP_UNITS = 10
# The largest values accepted (docs/configuration.md): a run holds about a window of
# units, and a chunk's units, in memory, so the bounds bound memory; both are far above
# any useful value (a chunk is cut for a model's context; a window is a few units).
MAX_WINDOW_UNITS = 1_000
MAX_CHUNK_UNITS = 10_000
AUDIENCE_ALL = "all"  # a lane's audience: everyone's pages (the default) ...
LANE_AUDIENCES = (AUDIENCE_ALL, "game-master")  # ... or the game master's only
DEFAULT_OUTPUT_MODULE = "json"  # output.module when absent (a streamer.outputs plugin)


@dataclass(frozen=True)
class LaneConfig:
    """A configured final lane and the artifact kind of its normalized output;
    ``engine`` and ``max_tokens`` are the lane's own (``None``: ``pipeline.extraction``'s).
    ``engines``: the lane's engines when it names several (``engine: [rules, openai]``),
    each run on every chunk, their candidates normalized together; ``engine`` is then
    ``None``. ``audience``: ``game-master`` leaves the lane out of the players' pages."""

    id: str
    kind: ArtifactKind[Any]
    engine: str | None = None
    max_tokens: int | None = None
    engines: tuple[str, ...] = ()
    audience: str = AUDIENCE_ALL

    def engine_names(self, default: str) -> tuple[str, ...]:
        """The engines that extract the lane: its own, else ``default``
        (``pipeline.extraction.engine``)."""
        return self.engines or (self.engine or default,)


@dataclass(frozen=True)
class EvidenceContextConfig:
    """``output.options.evidence_context``; ``lanes`` is trimmed, unique and sorted."""

    enabled: bool
    window_units: int = DEFAULT_WINDOW_UNITS
    lanes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChunkingConfig:
    """``pipeline.chunking``: how the source document is cut into extraction chunks."""

    max_units: int = DEFAULT_MAX_UNITS
    overlap_units: int = DEFAULT_OVERLAP_UNITS


@dataclass(frozen=True)
class NormalizationConfig:
    """``pipeline.normalization``: ``glossary``, resolved against the configuration
    file's folder (``None``: no glossary unless ``--glossary`` names one), and ``support``,
    the support check's policy: ``strict`` (the default: an unsupported candidate is
    rejected) or ``off`` (not checked; recorded in the published bundle's index)."""

    glossary: Path | None = None
    support: str = "strict"


@dataclass(frozen=True)
class Configuration:
    lanes: tuple[LaneConfig, ...]
    chunking: ChunkingConfig
    evidence_context: EvidenceContextConfig | None
    normalization: NormalizationConfig = field(default_factory=NormalizationConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    output_module: str = DEFAULT_OUTPUT_MODULE  # output.module: a streamer.outputs name
    # The file it was loaded from, if any: an --output must never replace it.
    path: Path | None = field(default=None, compare=False)

    def game_master_lanes(self) -> tuple[str, ...]:
        """The lanes left out of the players' pages (``audience: game-master``)."""
        return tuple(lane.id for lane in self.lanes if lane.audience != AUDIENCE_ALL)

    def lane(self, lane_id: str) -> LaneConfig:
        for lane in self.lanes:
            if lane.id == lane_id:
                return lane
        raise KeyError(lane_id)

    @property
    def evidence_enabled(self) -> bool:
        return self.evidence_context is not None and self.evidence_context.enabled

"""Output modules (``output.module``): what writes a run's documents into its bundle folder.

An output module is registered as a ``streamer.outputs`` entry point (``json`` is streamer's
own JSON bundle, ``JSON_BUNDLE``). The stage around it is generic: it reads and checks the
lane outputs, makes one pass over the source (chunk map, evidence projection), stages a
folder and publishes it atomically (``bundle_publication``); the module only writes the
documents. ``OUTPUTS`` is the registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from streamer.framework.evidence.projector import ProjectedEvidence
from streamer.framework.kinds.lane_outputs import LaneOutput
from streamer.framework.plugins.entry_points import OUTPUTS_GROUP, Plugins, named
from streamer.framework.source.reader import DocumentIdentity
from streamer.output.bundle_documents import write_bundle
from streamer.output.bundle_publication import StagedBundle
from streamer.output.chunk_map_tap import ChunkBoundsTap


class BundleWriter(Protocol):
    """``write(staged, identity, outputs, chunks, projection)``: every document of the
    bundle into ``staged``; ``projection`` is ``None`` when evidence is not published."""

    def __call__(
        self,
        staged: StagedBundle,
        identity: DocumentIdentity,
        outputs: Sequence[LaneOutput[Any]],
        chunks: ChunkBoundsTap,
        projection: ProjectedEvidence | None,
    ) -> None: ...


@dataclass(frozen=True)
class OutputModule:
    """One output module: ``name`` (``output.module``, the entry point's name), ``summary``,
    ``options`` (the members ``output.options`` may have; ``evidence_context`` is resolved by
    the configuration for every module that takes it) and ``write``."""

    name: str
    summary: str
    write: BundleWriter
    options: frozenset[str] = frozenset()


JSON_BUNDLE = OutputModule(
    "json",
    "the JSON bundle: index, lane payloads, chunk map, evidence context (docs/bundle.md)",
    write_bundle,
    frozenset({"evidence_context"}),
)


OUTPUTS: Plugins[OutputModule] = Plugins(OUTPUTS_GROUP, "output module", named(OutputModule))

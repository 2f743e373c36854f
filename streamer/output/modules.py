"""Output modules (``output.module``): what writes a run's documents into its bundle folder.

An output module is registered as a ``streamer.outputs`` entry point (``json`` is streamer's
own JSON bundle, ``JSON_BUNDLE``). The stage around it is generic: it reads and checks the
lane outputs, makes one pass over the source (chunk map, evidence projection), stages a
folder and publishes it atomically (``bundle_publication``); the module only writes the
documents. ``OUTPUTS`` is the registry.

The group also holds campaign outputs (``CampaignOutput``): what writes something of a
whole ``streamer batch`` output folder from its campaign registry (``notes``: the notes
vault, ``--notes DIR``). ``OUTPUTS`` names and gives the bundle modules alone,
``CAMPAIGN_OUTPUTS`` the campaign outputs alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from streamer.framework.errors.safe_text import quoted
from streamer.framework.evidence.projector import ProjectedEvidence
from streamer.framework.kinds.lane_outputs import LaneOutput
from streamer.framework.plugins.entry_points import OUTPUTS_GROUP, PluginError, Plugins, named
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


class CampaignWriter(Protocol):
    """``write(registry, destination, force=...)``: the output of the campaign registry
    file ``registry`` into ``destination`` (a folder or file of its own); ``force``: replace
    what a person changed there. Returns what it did (a receipt, ``Receipted``)."""

    def __call__(self, registry: Path, destination: Path, *, force: bool) -> Receipted: ...


class Receipted(Protocol):
    def receipt(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class CampaignOutput:
    """One campaign output: ``name`` (the entry point's name), ``summary`` and ``write``."""

    name: str
    summary: str
    write: CampaignWriter


def _output(name: str, loaded: Any) -> OutputModule | CampaignOutput:
    if isinstance(loaded, CampaignOutput):
        return named(CampaignOutput)(name, loaded)
    return named(OutputModule)(name, loaded)


_ALL: Plugins[OutputModule | CampaignOutput] = Plugins(OUTPUTS_GROUP, "output module", _output)
M = TypeVar("M", OutputModule, CampaignOutput)


@dataclass(frozen=True)
class OutputsOf(Generic[M]):
    """The plugins of ``streamer.outputs`` that are ``cls`` instances (``names`` imports
    the group's plugins; ``get`` and ``in`` import only the one named: a run's ``json``
    never imports the notes vault)."""

    cls: type[M]
    what: str

    def names(self) -> tuple[str, ...]:
        return tuple(name for name in _ALL.names() if isinstance(_ALL.get(name), self.cls))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in _ALL and isinstance(_ALL.get(name), self.cls)

    def get(self, name: str, where: str = "") -> M:
        if name not in self:
            known = self.names()
            raise PluginError(
                f"{where}unknown {self.what} {quoted(name)}",
                hint=f"{self.what}s: " + ", ".join(known) if known else "none is installed",
            )
        found = _ALL.get(name)
        assert isinstance(found, self.cls)
        return found


OUTPUTS: OutputsOf[OutputModule] = OutputsOf(OutputModule, "output module")
CAMPAIGN_OUTPUTS: OutputsOf[CampaignOutput] = OutputsOf(CampaignOutput, "campaign output")

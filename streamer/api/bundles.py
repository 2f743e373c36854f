"""``streamer bundle`` and ``streamer schema``: the JSON bundle."""

from __future__ import annotations

import collections
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Unpack

from streamer.api.config import default_registry
from streamer.api.lanes import (
    effective_lanes,
    lane_inputs,
    read_lane_outputs,
)
from streamer.api.output_destinations import check_inputs_outside, config_input
from streamer.api.run_options import RunOptions, read_options, warning
from streamer.api.sources import Source, check_jobs, source_batches
from streamer.configuration import Configuration
from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import (
    ConfigurationError,
)
from streamer.framework.evidence.projector import (
    ProjectedEvidence,
    check_sources,
    project_evidence,
)
from streamer.framework.evidence.request import build_evidence_request
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.source.accepted import AcceptedSource
from streamer.output import schema_catalog
from streamer.output.bundle_documents import INDEX_FILE
from streamer.output.bundle_publication import publishing, staged_bundle
from streamer.output.chunk_map_tap import ChunkBoundsTap
from streamer.output.modules import OUTPUTS


@dataclass(frozen=True)
class BundleResult:
    """What ``bundle`` published; ``normalized_lanes`` counts lane payloads only."""

    document_id: str
    semantic_digest: str
    normalized_lanes: int
    files: tuple[str, ...]

    def receipt(self) -> dict[str, Any]:
        """The one-line JSON receipt ``streamer bundle`` prints on success."""
        return {
            "status": "ok",
            "document_id": self.document_id,
            "normalized_lanes": self.normalized_lanes,
            "files": list(self.files),
        }


def bundle(
    config: Configuration,
    source: Source | AcceptedSource,
    lanes_dir: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    force: bool = False,
    **options: Unpack[RunOptions],
) -> BundleResult:
    """Publish the JSON bundle folder ``output``: all of it, or nothing.

    Usage errors (``output`` exists and ``force`` is not set, an unknown lane, an input
    inside the bundle to replace) come before any input is read; a run waits while
    another publishes the same ``output``. The lane outputs of the run are read and
    validated, then one pass over the source validates and digests every unit, collects
    the chunk map and, when evidence publication is enabled, projects the evidence
    context. The bundle is assembled in a temporary sibling folder and swapped into place.
    ``source`` may be the ``AcceptedSource`` ``streamer run`` imported: it is not validated
    again (the same bytes are published).
    """
    check_jobs(options.get("jobs", 1))
    destination = Path(output)
    run_lanes = effective_lanes(config, options.get("lanes"))
    warn = warning(options)
    writer = OUTPUTS.get(config.output_module)
    with publishing(destination, force=force, marker=INDEX_FILE):
        read = source.path if isinstance(source, AcceptedSource) else source
        inputs = [("--source", read), *config_input(config.path)]
        check_inputs_outside(destination, [*inputs, *lane_inputs(lanes_dir, run_lanes)])
        outputs = read_lane_outputs(config, lanes_dir, run_lanes, warn=lambda _: None)
        found = {lane.lane_id for lane in outputs}
        missing = [lane_id for lane_id in run_lanes if lane_id not in found]
        if missing:
            warn("lanes without a normalized output, absent from the bundle: " + ", ".join(missing))
        settings = config.evidence_context
        request = None
        if settings is not None and settings.enabled:
            selected = [lane for lane in outputs if lane.lane_id in settings.lanes]
            request = build_evidence_request(settings.lanes, settings.window_units, selected)
        chunks = ChunkBoundsTap(config.chunking.max_units, config.chunking.overlap_units)
        projection: ProjectedEvidence | None = None
        try:
            wanted = None if request is None else request.referenced_ids()
            with source_batches(source, chunks.tap, wanted, **read_options(options)) as (
                batches,
                identity_of,
            ):
                if request is None:
                    collections.deque(batches, maxlen=0)
                else:
                    projection = project_evidence(request, batches, identity_of)
                identity = identity_of()
            check_sources(((lane.lane_id, lane.source) for lane in outputs), identity)
            with staged_bundle(destination, force=force) as staged:
                writer.write(staged, identity, outputs, chunks, projection)
        finally:
            chunks.close()
            if projection is not None:
                projection.close()
    return BundleResult(
        identity.document_id, identity.semantic_digest, len(outputs), tuple(sorted(staged.files))
    )


def schema_ids(registry: ArtifactKindRegistry | None = None) -> tuple[str, ...]:
    """The ID of every JSON Schema streamer publishes, sorted: the shipped ones and the lane
    payload schema of every kind of ``registry`` (default: every installed kind)."""
    return schema_catalog.known_schema_ids(registry or default_registry())


def schema(schema_id: str, registry: ArtifactKindRegistry | None = None) -> bytes:
    """The JSON Schema (draft 2020-12) of ``schema_id``, as shipped (a plugin kind's is
    generated from its record): its ID (``notarius.dnd.spell_casts``) or its name, as every
    index prints it (``notarius_dnd_spell_casts_v1``)."""
    registry = registry or default_registry()
    data = schema_catalog.schema_document(schema_id, registry)
    if data is None:
        data = schema_catalog.schema_document(_id_of_name(schema_id, registry), registry)
    if data is None:
        raise ConfigurationError(
            f"unknown schema ID or name {quoted(schema_id)}",
            hint="'streamer schema --list' names every schema",
        )
    return data


def _id_of_name(name: str, registry: ArtifactKindRegistry) -> str:
    """The schema ID of a schema's versioned name (``notarius_dnd_npcs_v1`` ->
    ``notarius.dnd.npcs``), or ``""``."""
    stem, _, version = name.rpartition("_")
    if not re.fullmatch(r"v[0-9]+", version):
        return ""
    for schema_id in schema_catalog.known_schema_ids(registry):
        if schema_id.replace(".", "_") == stem:
            return schema_id
    return ""

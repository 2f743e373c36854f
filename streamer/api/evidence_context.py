"""``streamer evidence``: project and publish the evidence-context document."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Unpack

from streamer.api.lanes import effective_lanes, lane_inputs, read_lane_outputs
from streamer.api.output_destinations import config_input, publish_to, resolve_output
from streamer.api.run_options import RunOptions, read_options, warning
from streamer.api.sources import Source, check_jobs, source_batches
from streamer.configuration import Configuration
from streamer.framework.errors.types import (
    ConfigurationError,
)
from streamer.framework.evidence.projector import (
    ProjectedEvidence,
    project_evidence,
)
from streamer.framework.evidence.request import build_evidence_request
from streamer.output.evidence_context import write_evidence_context


@dataclass(frozen=True)
class EvidenceResult:
    """What an evidence run produced (also the basis of the bundle receipt)."""

    document_id: str
    semantic_digest: str
    unit_count: int
    contexts: int
    published_units: int
    references: int
    contributing_lanes: tuple[str, ...]


def project(
    config: Configuration,
    source: Source,
    lanes_dir: str | os.PathLike[str],
    **options: Unpack[RunOptions],
) -> ProjectedEvidence:
    """Validate everything and project the evidence context; nothing is written.

    The caller owns the result and must ``close()`` it.
    """
    settings = config.evidence_context
    if settings is None or not settings.enabled:
        raise ConfigurationError(
            "evidence publication is not enabled in the configuration",
            hint="set output.options.evidence_context.enabled: true with a lanes allowlist",
        )
    run_lanes = effective_lanes(config, options.get("lanes"))
    selected = [lane_id for lane_id in settings.lanes if lane_id in run_lanes]
    outputs = read_lane_outputs(config, lanes_dir, selected, warning(options))
    request = build_evidence_request(settings.lanes, settings.window_units, outputs)
    wanted = request.referenced_ids()
    with source_batches(source, wanted=wanted, **read_options(options)) as (batches, identity_of):
        return project_evidence(request, batches, identity_of)


def evidence(
    config: Configuration,
    source: Source,
    lanes_dir: str | os.PathLike[str],
    *,
    output: str | os.PathLike[str] | IO[bytes] = "-",
    **options: Unpack[RunOptions],
) -> EvidenceResult:
    """Publish the evidence-context document to ``output`` (a path, ``-`` or a stream).

    Every validation completes before the first output byte; a file is written to a
    temporary sibling and renamed into place, so a failed run writes nothing.
    """
    check_jobs(options.get("jobs", 1))
    run_lanes = effective_lanes(config, options.get("lanes"))
    inputs = [("--source", source), *config_input(config.path)]
    destination = resolve_output(output, [*inputs, *lane_inputs(lanes_dir, run_lanes)])
    projection = project(config, source, lanes_dir, **options)
    try:
        publish_to(destination, lambda out: write_evidence_context(projection, out))
        return summarize(projection)
    finally:
        projection.close()


def summarize(projection: ProjectedEvidence) -> EvidenceResult:
    identity = projection.identity
    lanes = sorted(
        {lane for context in projection.contexts for _, ids in context.references for lane in ids}
    )
    return EvidenceResult(
        identity.document_id,
        identity.semantic_digest,
        identity.unit_count,
        len(projection.contexts),
        sum(context.end_position - context.start_position + 1 for context in projection.contexts),
        sum(len(context.references) for context in projection.contexts),
        tuple(lanes),
    )

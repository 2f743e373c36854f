"""The Python API: every command of the CLI is a thin layer over a function here.

    from streamer import api

    config = api.load_config("streamer.yaml")
    result = api.evidence(config, "session.jsonl", "lanes/", output="evidence.json")

One module a job: ``config`` (the configuration and kinds), ``lanes`` (the lanes of a run
and their outputs), ``sources`` (reading a source document once, in batches), ``outputs``
(publishing a result), ``evidence``, ``transcripts`` (import and chunk), ``extract``
(the candidates of each lane), ``normalize``, ``bundles``, ``validation`` and ``report``.
"""

from streamer.api.batch import BatchResult, batch
from streamer.api.bundles import BundleResult, bundle, schema, schema_ids
from streamer.api.config import default_registry, load_config
from streamer.api.evidence import EvidenceResult, evidence, project, summarize
from streamer.api.extract import ExtractResult, extract
from streamer.api.lanes import effective_lanes, read_lane_outputs
from streamer.api.normalize import NormalizeResult, normalize
from streamer.api.outputs import check_output_destination, require_standard_output
from streamer.api.report import report
from streamer.api.run import RunResult, run
from streamer.api.sources import open_source, source_batches
from streamer.api.transcripts import (
    ChunkResult,
    ImportResult,
    chunk,
    default_document_id,
    import_transcript,
)
from streamer.api.validation import BundleReport, validate_bundle

__all__ = [
    "BatchResult",
    "BundleReport",
    "BundleResult",
    "ChunkResult",
    "EvidenceResult",
    "ExtractResult",
    "ImportResult",
    "NormalizeResult",
    "RunResult",
    "batch",
    "bundle",
    "check_output_destination",
    "chunk",
    "default_document_id",
    "default_registry",
    "effective_lanes",
    "evidence",
    "extract",
    "import_transcript",
    "load_config",
    "normalize",
    "open_source",
    "project",
    "read_lane_outputs",
    "report",
    "require_standard_output",
    "run",
    "schema",
    "schema_ids",
    "source_batches",
    "summarize",
    "validate_bundle",
]

"""The Python API: every command of the CLI is a thin layer over a function here.

    from streamer import api

    config = api.load_config("streamer.yaml")
    result = api.evidence(config, "session.jsonl", "lanes/", output="evidence.json")

One module a job: ``config`` (the configuration and kinds), ``lanes`` (the lanes of a run
and their outputs), ``sources`` (reading a source document once, in batches), ``outputs``
(publishing a result), ``evidence``, ``transcripts`` (import and chunk), ``extract``
(the candidates of each lane), ``normalize``, ``bundles``, ``validation`` and ``report``.

A command imports only the modules it uses: each name is imported when it is first used
(PEP 562), which keeps start-up short (``streamer evidence`` never imports the
extraction, normalization or report code).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_MODULE_OF = {
    "BatchResult": "streamer.api.batch",
    "BundleReport": "streamer.api.validation",
    "BundleResult": "streamer.api.bundles",
    "ChunkResult": "streamer.api.transcripts",
    "EvidenceResult": "streamer.api.evidence",
    "ExtractResult": "streamer.api.extract",
    "ImportResult": "streamer.api.transcripts",
    "NormalizeResult": "streamer.api.normalize",
    "RunResult": "streamer.api.run",
    "batch": "streamer.api.batch",
    "bundle": "streamer.api.bundles",
    "check_output_destination": "streamer.api.outputs",
    "chunk": "streamer.api.transcripts",
    "default_document_id": "streamer.api.transcripts",
    "default_registry": "streamer.api.config",
    "effective_lanes": "streamer.api.lanes",
    "evidence": "streamer.api.evidence",
    "extract": "streamer.api.extract",
    "import_transcript": "streamer.api.transcripts",
    "load_config": "streamer.api.config",
    "normalize": "streamer.api.normalize",
    "open_source": "streamer.api.sources",
    "project": "streamer.api.evidence",
    "read_lane_outputs": "streamer.api.lanes",
    "report": "streamer.api.report",
    "require_standard_output": "streamer.api.outputs",
    "run": "streamer.api.run",
    "schema": "streamer.api.bundles",
    "schema_ids": "streamer.api.bundles",
    "source_batches": "streamer.api.sources",
    "summarize": "streamer.api.evidence",
    "validate_bundle": "streamer.api.validation",
}

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


class _Api(types.ModuleType):
    """The package's own type: a name is imported when first used, and a submodule of the
    same name as a function (``evidence``, ``extract``, ``normalize``, ``report``,
    ``batch``, ``run``) never hides it when the import system binds the submodule."""

    def __getattr__(self, name: str) -> Any:
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        types.ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _MODULE_OF and isinstance(value, types.ModuleType):
            return  # the function of that name wins (``from streamer.api.run import ...``)
        types.ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        return sorted({*__all__, *super().__dir__()})


sys.modules[__name__].__class__ = _Api

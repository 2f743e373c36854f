"""The Python API: every command of the CLI is a thin layer over a function here.

    from streamer import api

    config = api.load_config("streamer.yaml")
    result = api.evidence(config, "session.jsonl", "lanes/", output="evidence.json")

One module a job, none named as a function: ``config`` (the configuration and kinds),
``lanes`` (the lanes of a run and their outputs), ``sources`` (reading a source document
once, in batches), ``outputs`` (publishing a result), ``evidence_context`` (``evidence``,
``project``), ``transcripts`` (``import_transcript``, ``chunk``), ``extraction``
(``extract``), ``normalization`` (``normalize``), ``bundles`` (``bundle``, ``schema``),
``validation`` (``validate_bundle``, ``validate_registry``), ``reports`` (``report``),
``runs`` (``run``), ``batches`` (``batch``), ``campaigns`` (``campaign``),
``registries`` (``campaign_registry``), ``campaign_outputs`` (``campaign_folder``),
``vault`` (``write_vault``),
``evaluation`` (``evaluate``, ``reference_from``) and ``evaluation_campaign``
(``evaluate_campaign``). ``ExitStatus`` names what a
command returns.

Each name is imported when it is first used (PEP 562), which keeps start-up short: the
CLI's start-up and ``streamer evidence`` never import the extraction, normalization or
report code (tests/test_api_names.py). ``__all__`` is the one list of names, with the
module of each; the imports below are what a type checker reads, and a test checks that
they import exactly those names from those modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # re-exported: ``name as name`` (isort would split these lines)
    # isort: off
    from streamer.api.batches import BatchResult as BatchResult, batch as batch
    from streamer.api.bundles import (
        BundleResult as BundleResult,
        bundle as bundle,
        schema as schema,
        schema_ids as schema_ids,
    )
    from streamer.api.campaign_outputs import (
        CampaignFolderResult as CampaignFolderResult,
        campaign_folder as campaign_folder,
    )
    from streamer.api.campaigns import CampaignResult as CampaignResult, campaign as campaign
    from streamer.api.config import (
        default_config as default_config,
        default_registry as default_registry,
        effective_config as effective_config,
        init_folder as init_folder,
        load_config as load_config,
    )
    from streamer.api.evaluation import (
        DEFAULT_TOLERANCE as DEFAULT_TOLERANCE,
        EvaluationResult as EvaluationResult,
        evaluate as evaluate,
        reference_from as reference_from,
    )
    from streamer.api.evaluation_campaign import (
        CampaignEvaluation as CampaignEvaluation,
        evaluate_campaign as evaluate_campaign,
    )
    from streamer.api.evidence_context import (
        EvidenceResult as EvidenceResult,
        evidence as evidence,
        project as project,
        summarize as summarize,
    )
    from streamer.api.extraction import ExtractResult as ExtractResult, extract as extract
    from streamer.api.lanes import (
        effective_lanes as effective_lanes,
        read_lane_outputs as read_lane_outputs,
    )
    from streamer.api.normalization import (
        NormalizeResult as NormalizeResult,
        normalize as normalize,
    )
    from streamer.api.output_destinations import (
        check_output_destination as check_output_destination,
        require_standard_output as require_standard_output,
    )
    from streamer.api.registries import (
        RegistryResult as RegistryResult,
        campaign_registry as campaign_registry,
    )
    from streamer.api.reports import report as report
    from streamer.api.runs import RunResult as RunResult, run as run
    from streamer.api.sources import open_source as open_source, source_batches as source_batches
    from streamer.api.transcripts import (
        ChunkResult as ChunkResult,
        ImportResult as ImportResult,
        chunk as chunk,
        default_document_id as default_document_id,
        import_formats as import_formats,
        import_transcript as import_transcript,
    )
    from streamer.api.vault import VaultResult as VaultResult, write_vault as write_vault
    from streamer.api.validation import (
        BundleReport as BundleReport,
        RegistryReport as RegistryReport,
        validate_bundle as validate_bundle,
        validate_registry as validate_registry,
    )
    from streamer.framework.errors.types import ExitStatus as ExitStatus
    # isort: on

# name -> the module that defines it
MODULE_OF = {
    "BatchResult": "streamer.api.batches",
    "BundleReport": "streamer.api.validation",
    "BundleResult": "streamer.api.bundles",
    "CampaignEvaluation": "streamer.api.evaluation_campaign",
    "CampaignFolderResult": "streamer.api.campaign_outputs",
    "CampaignResult": "streamer.api.campaigns",
    "ChunkResult": "streamer.api.transcripts",
    "DEFAULT_TOLERANCE": "streamer.api.evaluation",
    "EvaluationResult": "streamer.api.evaluation",
    "EvidenceResult": "streamer.api.evidence_context",
    "ExitStatus": "streamer.framework.errors.types",
    "ExtractResult": "streamer.api.extraction",
    "ImportResult": "streamer.api.transcripts",
    "NormalizeResult": "streamer.api.normalization",
    "RegistryReport": "streamer.api.validation",
    "RegistryResult": "streamer.api.registries",
    "RunResult": "streamer.api.runs",
    "batch": "streamer.api.batches",
    "bundle": "streamer.api.bundles",
    "campaign": "streamer.api.campaigns",
    "campaign_folder": "streamer.api.campaign_outputs",
    "campaign_registry": "streamer.api.registries",
    "check_output_destination": "streamer.api.output_destinations",
    "chunk": "streamer.api.transcripts",
    "default_config": "streamer.api.config",
    "default_document_id": "streamer.api.transcripts",
    "default_registry": "streamer.api.config",
    "effective_config": "streamer.api.config",
    "effective_lanes": "streamer.api.lanes",
    "evaluate": "streamer.api.evaluation",
    "evaluate_campaign": "streamer.api.evaluation_campaign",
    "evidence": "streamer.api.evidence_context",
    "extract": "streamer.api.extraction",
    "import_formats": "streamer.api.transcripts",
    "import_transcript": "streamer.api.transcripts",
    "init_folder": "streamer.api.config",
    "load_config": "streamer.api.config",
    "normalize": "streamer.api.normalization",
    "open_source": "streamer.api.sources",
    "project": "streamer.api.evidence_context",
    "read_lane_outputs": "streamer.api.lanes",
    "reference_from": "streamer.api.evaluation",
    "report": "streamer.api.reports",
    "require_standard_output": "streamer.api.output_destinations",
    "run": "streamer.api.runs",
    "schema": "streamer.api.bundles",
    "schema_ids": "streamer.api.bundles",
    "source_batches": "streamer.api.sources",
    "summarize": "streamer.api.evidence_context",
    "validate_bundle": "streamer.api.validation",
    "validate_registry": "streamer.api.validation",
    "VaultResult": "streamer.api.vault",
    "write_vault": "streamer.api.vault",
}

__all__ = sorted(MODULE_OF)


if not TYPE_CHECKING:  # a type checker reads the imports above, and knows no other name

    def __getattr__(name: str) -> Any:
        module = MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # imported once
        return value


def __dir__() -> list[str]:
    return sorted({*__all__, *globals()})

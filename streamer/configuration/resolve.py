"""Resolving the configuration, with every rule of the spec's Configuration Policy.

Everything here fails with a ``ConfigurationError`` (exit status 2) before any input is
read. Errors name the JSON path of the offending member (``$.output.options...``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from streamer.configuration.extraction_settings import (
    lane_engines,
    max_tokens_value,
    resolve_extraction,
)
from streamer.configuration.model import (
    AUDIENCE_ALL,
    DEFAULT_MAX_UNITS,
    DEFAULT_OUTPUT_MODULE,
    DEFAULT_OVERLAP_UNITS,
    DEFAULT_WINDOW_UNITS,
    LANE_AUDIENCES,
    MAX_CHUNK_UNITS,
    MAX_WINDOW_UNITS,
    ChunkingConfig,
    Configuration,
    EvidenceContextConfig,
    LaneConfig,
    NormalizationConfig,
)
from streamer.configuration.yaml_loader import load_yaml
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.regular_files import MIB, read_regular_text
from streamer.output.modules import OUTPUTS

LANE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
# The configuration is read whole: a regular file of at most this many bytes.
CONFIG_MAX_BYTES = MIB


def load_configuration(path: Path, registry: ArtifactKindRegistry) -> Configuration:
    what = f"configuration file {shown_path(path)}"
    text = read_regular_text(
        path, CONFIG_MAX_BYTES, what, ConfigurationError, missing_hint="check --config"
    )
    configuration = resolve_configuration(load_yaml(text), registry, path.parent)
    return dataclasses.replace(configuration, path=path)


def resolve_configuration(
    data: Any, registry: ArtifactKindRegistry, base: Path | None = None
) -> Configuration:
    """``base``: the folder relative paths (the glossary) are resolved against."""
    root = _object(data, "$", required={"pipeline"}, optional={"output"})
    pipeline = _object(
        root["pipeline"],
        "$.pipeline",
        required={"lanes"},
        optional={"chunking", "extraction", "normalization"},
    )
    lanes = _lanes(pipeline["lanes"], registry)
    chunking = _chunking(pipeline.get("chunking"))
    normalization = _normalization(pipeline.get("normalization"), base or Path("."))
    evidence = None
    output_module = DEFAULT_OUTPUT_MODULE
    if "output" in root:
        output = _object(root["output"], "$.output", required={"module"}, optional={"options"})
        module = output["module"]
        if module not in OUTPUTS:
            raise ConfigurationError(
                f"$.output.module must be one of: {', '.join(OUTPUTS.names())}",
                hint="output modules are plugins (docs/plugins.md)",
            )
        output_module = str(module)
        if "options" in output:
            accepted = set(OUTPUTS.get(output_module).options)
            options = _object(
                output["options"], "$.output.options", required=set(), optional=accepted
            )
            if "evidence_context" in options:
                evidence = _evidence_context(options["evidence_context"], lanes)
    extraction = resolve_extraction(pipeline.get("extraction"))
    return Configuration(lanes, chunking, evidence, normalization, extraction, output_module)


def _object(value: Any, path: str, *, required: set[str], optional: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigurationError(f"{path} must be a mapping")
    for key in value:
        if key not in required and key not in optional:
            shown = quoted(key) if isinstance(key, str) else "(a non-string key)"
            raise ConfigurationError(
                f"{path}: unknown member {shown}",
                hint="accepted: " + ", ".join(sorted(required | optional)),
            )
    for key in sorted(required):
        if key not in value:
            raise ConfigurationError(f"{path}.{key} is required")
    return value


def _integer(value: Any, path: str, minimum: int, maximum: int) -> int:
    # A YAML boolean is a bool and a YAML float a float: neither is an integer here.
    if type(value) is not int or not minimum <= value <= maximum:
        raise ConfigurationError(f"{path} must be an integer from {minimum} to {maximum:,}")
    return value


def _lanes(value: Any, registry: ArtifactKindRegistry) -> tuple[LaneConfig, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigurationError("$.pipeline.lanes must be a non-empty list")
    lanes: list[LaneConfig] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        path = f"$.pipeline.lanes[{index}]"
        lane = _object(
            item,
            path,
            required={"id", "artifact_kind"},
            optional={"engine", "max_tokens", "audience"},
        )
        lane_id = _lane_id(lane["id"], f"{path}.id")
        if lane_id in seen:
            raise ConfigurationError(f"{path}.id: duplicate lane ID {quoted(lane_id)}")
        seen.add(lane_id)
        kind_name = lane["artifact_kind"]
        if not isinstance(kind_name, str):
            raise ConfigurationError(f"{path}.artifact_kind must be a string")
        kind = registry.get(kind_name, where=f"{path}.artifact_kind")
        engines = lane_engines(lane["engine"], f"{path}.engine") if "engine" in lane else ()
        max_tokens = (
            max_tokens_value(lane["max_tokens"], f"{path}.max_tokens")
            if "max_tokens" in lane
            else None
        )
        several = engines if len(engines) > 1 else ()
        engine = engines[0] if len(engines) == 1 else None
        audience = lane.get("audience", AUDIENCE_ALL)
        if audience not in LANE_AUDIENCES:
            raise ConfigurationError(
                f"{path}.audience must be one of: " + ", ".join(LANE_AUDIENCES),
                hint="game-master: the lane is left out of the players' pages",
            )
        lanes.append(LaneConfig(lane_id, kind, engine, max_tokens, several, audience))
    return tuple(lanes)


def _lane_id(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ConfigurationError(f"{path} must be a string")
    lane_id = value.strip()
    if not LANE_ID.match(lane_id):
        raise ConfigurationError(
            f"{path}: {quoted(lane_id)} is not a valid lane ID",
            hint="lane IDs are 1-64 characters of a-z, 0-9, '-' and '_', starting with a "
            "letter or digit",
        )
    return lane_id


def _chunking(value: Any) -> ChunkingConfig:
    if value is None:
        return ChunkingConfig()
    chunking = _object(
        value, "$.pipeline.chunking", required=set(), optional={"max_units", "overlap_units"}
    )
    max_units = _integer(
        chunking.get("max_units", DEFAULT_MAX_UNITS),
        "$.pipeline.chunking.max_units",
        1,
        MAX_CHUNK_UNITS,
    )
    overlap = _integer(
        chunking.get("overlap_units", DEFAULT_OVERLAP_UNITS),
        "$.pipeline.chunking.overlap_units",
        0,
        MAX_CHUNK_UNITS - 1,
    )
    if overlap >= max_units:
        raise ConfigurationError("$.pipeline.chunking.overlap_units must be smaller than max_units")
    return ChunkingConfig(max_units, overlap)


SUPPORT_POLICIES = ("strict", "off")


def _normalization(value: Any, base: Path) -> NormalizationConfig:
    if value is None:
        return NormalizationConfig()
    path = "$.pipeline.normalization"
    normalization = _object(value, path, required=set(), optional={"glossary", "support"})
    support = normalization.get("support", "strict")
    if support is False:  # YAML 1.1 reads a bare ``off`` as false
        support = "off"
    if support not in SUPPORT_POLICIES:
        raise ConfigurationError(
            f"{path}.support must be one of: " + ", ".join(SUPPORT_POLICIES),
            hint="strict rejects a candidate its cited units do not support; off accepts it",
        )
    glossary = normalization.get("glossary")
    if glossary is None:
        return NormalizationConfig(support=support)
    if not isinstance(glossary, str) or not glossary.strip():
        raise ConfigurationError(
            f"{path}.glossary must be a file path",
            hint="relative paths are resolved against the configuration file's folder",
        )
    return NormalizationConfig(base / glossary, support)


def _evidence_context(value: Any, lanes: tuple[LaneConfig, ...]) -> EvidenceContextConfig:
    path = "$.output.options.evidence_context"
    if not isinstance(value, dict):
        raise ConfigurationError(f"{path} must be a mapping")
    if "enabled" not in value:
        raise ConfigurationError(f"{path}.enabled is required")
    enabled = value["enabled"]
    if type(enabled) is not bool:
        raise ConfigurationError(f"{path}.enabled must be true or false")
    if not enabled:
        _object(value, path, required={"enabled"}, optional=set())
        return EvidenceContextConfig(enabled=False)
    _object(value, path, required={"enabled", "lanes"}, optional={"window_units"})
    window = _integer(
        value.get("window_units", DEFAULT_WINDOW_UNITS), f"{path}.window_units", 0, MAX_WINDOW_UNITS
    )
    selected = value["lanes"]
    if not isinstance(selected, list) or not selected:
        raise ConfigurationError(
            f"{path}.lanes must be a non-empty list of lane IDs",
            hint="evidence publication needs an explicit allowlist of lanes",
        )
    kinds = {lane.id: lane.kind for lane in lanes}
    allowlist: list[str] = []
    for index, item in enumerate(selected):
        lane_id = _lane_id(item, f"{path}.lanes[{index}]")
        if lane_id in allowlist:
            raise ConfigurationError(f"{path}.lanes[{index}]: duplicate lane ID {quoted(lane_id)}")
        kind = kinds.get(lane_id)
        if kind is None:
            raise ConfigurationError(
                f"{path}.lanes[{index}]: {quoted(lane_id)} is not a configured lane",
                hint="allowlisted lanes must be listed in pipeline.lanes",
            )
        if not kind.exposes_evidence:
            raise ConfigurationError(
                f"{path}.lanes[{index}]: lane {quoted(lane_id)} has artifact kind {kind.name}, "
                "which cannot expose source evidence"
            )
        allowlist.append(lane_id)
    return EvidenceContextConfig(True, window, tuple(sorted(allowlist)))

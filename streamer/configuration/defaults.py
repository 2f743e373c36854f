"""The configuration ``streamer run`` uses without ``--config``, and the commented YAML of any
configuration (``streamer config --show``, ``streamer init``).

The default configuration has a lane for every artifact kind that is extracted from the
transcript (one per kind, named by the kind's default lane), on the built-in rules where
the kind has them; a kind that needs a model gets its lane only when a model server is
named (``--model-url`` and ``--model``, or the ``OPENAI_BASE_URL`` and ``OPENAI_MODEL``
variables; ``OPENAI_API_KEY``, when set, is the key: the configuration names the variable,
never the key), and then a kind with rules runs on both (``engine: [rules, openai]``: a
record both find is one record). Evidence is published for every lane but those of broad kinds
(``ArtifactKind.broad``: scene descriptions): the spec's policy names them only expressly.
Everything else is the documented default.

``render(configuration)`` writes a configuration as commented YAML that resolves to the same
configuration: what ``config --show`` prints can be saved and given with ``--config``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from streamer.configuration.extraction_settings import DEFAULT_ENGINE, ExtractionConfig
from streamer.configuration.model import (
    DEFAULT_WINDOW_UNITS,
    ChunkingConfig,
    Configuration,
    EvidenceContextConfig,
    LaneConfig,
    NormalizationConfig,
)
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.registry import ArtifactKindRegistry

BASE_URL_VARIABLE = "OPENAI_BASE_URL"
MODEL_VARIABLE = "OPENAI_MODEL"
API_KEY_VARIABLE = "OPENAI_API_KEY"


@dataclass(frozen=True)
class ModelServer:
    """The model server of the default configuration: its OpenAI-compatible root, the
    model's name, and the variable holding its key (``None``: no key sent)."""

    base_url: str
    model: str
    api_key_env: str | None = None


def model_server(
    model_url: str | None,
    model: str | None,
    environment: Mapping[str, str] | None = None,
) -> ModelServer | None:
    """The model server named by ``--model-url`` and ``--model``, each defaulting to its
    variable (``OPENAI_BASE_URL``, ``OPENAI_MODEL``); ``None`` when neither names a URL."""
    env = os.environ if environment is None else environment
    url = model_url or env.get(BASE_URL_VARIABLE) or None
    name = model or env.get(MODEL_VARIABLE) or None
    if url is None:
        if model is not None:
            raise ConfigurationError(
                "--model needs a model server",
                hint=f"give --model-url URL too (or set {BASE_URL_VARIABLE})",
            )
        return None
    source = "--model-url" if model_url else BASE_URL_VARIABLE
    if name is None:
        raise ConfigurationError(
            f"{source} names a model server but no model",
            hint=f"give --model NAME (or set {MODEL_VARIABLE}), e.g. --model qwen2.5:7b-instruct",
        )
    key = API_KEY_VARIABLE if env.get(API_KEY_VARIABLE) else None
    return ModelServer(url, name, key)


def default_configuration(
    registry: ArtifactKindRegistry, server: ModelServer | None
) -> Configuration:
    """The configuration of a run without ``--config`` (see the module's docstring)."""
    lanes: list[LaneConfig] = []
    for kind in registry:
        extraction = kind.extraction
        if extraction is None:
            continue  # never extracted (the party roster): it needs a glossary
        if server is None:
            if extraction.rules is not None:
                lanes.append(LaneConfig(kind.default_lane, kind, "rules"))
        elif extraction.rules is not None:  # both: the rules' and the model's candidates
            lanes.append(LaneConfig(kind.default_lane, kind, engines=("rules", DEFAULT_ENGINE)))
        else:
            lanes.append(LaneConfig(kind.default_lane, kind, None))
    allowlist = tuple(
        sorted(lane.id for lane in lanes if lane.kind.exposes_evidence and not lane.kind.broad)
    )
    evidence = EvidenceContextConfig(True, DEFAULT_WINDOW_UNITS, allowlist) if allowlist else None
    extraction_config = (
        ExtractionConfig()
        if server is None
        else ExtractionConfig(
            base_url=server.base_url.rstrip("/"),
            model=server.model,
            api_key_env=server.api_key_env,
        )
    )
    return Configuration(
        tuple(lanes), ChunkingConfig(), evidence, NormalizationConfig(), extraction_config
    )


def _scalar(value: str) -> str:
    """A YAML scalar for ``value``: plain when it is safely plain, else double-quoted."""
    plain = value.replace("-", "").replace("_", "").replace("/", "").replace(".", "")
    if plain.isalnum() and value.isascii() and not value[0].isdigit():
        return value
    return orjson.dumps(value).decode("utf-8")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def render(
    configuration: Configuration,
    *,
    title: str,
    unused_kinds: Collection[str] = (),
) -> str:
    """``configuration`` as commented YAML that resolves to it. ``unused_kinds``: the kinds
    a model server would add, named in a comment."""
    lines = [f"# {line}" if line else "#" for line in title.splitlines()]
    lines += [
        "# Every key is explained in docs/configuration.md; save this as streamer.yaml,",
        "# edit it, and give it with --config.",
        "pipeline:",
    ]
    lines += _lanes(configuration.lanes, unused_kinds)
    lines += _chunking(configuration.chunking)
    lines += _normalization(configuration)
    lines += _extraction(configuration.extraction)
    lines += _output(configuration.evidence_context)
    return "\n".join(lines) + "\n"


def _lanes(lanes: Sequence[LaneConfig], unused_kinds: Collection[str]) -> list[str]:
    lines = [
        "  # The lanes: one a kind of record. engine: rules uses the built-in rules (no model);",
        "  # a lane without engine asks the model server of pipeline.extraction.",
    ]
    if any(lane.engines for lane in lanes):
        lines += [
            "  # A list of engines runs each; a record both find is one record (the receipt's",
            "  # engines say how many each found).",
        ]
    lines.append("  lanes:")
    for lane in lanes:
        engine = f", engine: {lane.engine}" if lane.engine is not None else ""
        if lane.engines:
            engine = f", engine: [{', '.join(lane.engines)}]"
        lines.append(
            f"    - {{id: {_scalar(lane.id)}, artifact_kind: {lane.kind.name}{engine}}}"
            f"  # {lane.kind.question}"
        )
    if unused_kinds:
        lines += [
            "  # Lanes that need a model server (streamer run --model-url URL --model NAME, or",
            f"  # {BASE_URL_VARIABLE} and {MODEL_VARIABLE}): " + ", ".join(unused_kinds),
        ]
    return lines


def _chunking(chunking: ChunkingConfig) -> list[str]:
    return [
        "  chunking:",
        f"    max_units: {chunking.max_units}  # the most transcript units one chunk (one "
        "request) holds",
        f"    overlap_units: {chunking.overlap_units}  # the units a chunk shares with the "
        "previous one",
    ]


def _normalization(configuration: Configuration) -> list[str]:
    normalization = configuration.normalization
    glossary = normalization.glossary
    lines = [
        "  normalization:"
        if glossary or normalization.support != "strict"
        else "  # normalization:"
    ]
    if glossary is not None:
        base = configuration.path.parent if configuration.path is not None else Path(".")
        shown = os.path.relpath(glossary, base) if not glossary.is_absolute() else str(glossary)
        lines.append(
            f"    glossary: {_scalar(shown)}  # names, aliases and the party; relative to "
            "this file's folder"
        )
    else:
        lines.append(
            "  #   glossary: glossary.yaml  # names, aliases and the party (streamer init "
            "writes one)"
        )
    if normalization.support != "strict":
        lines.append(
            f"    support: {normalization.support}  # strict (default): a record its cited "
            "units do not say is rejected"
        )
    return lines


def _output(evidence: EvidenceContextConfig | None) -> list[str]:
    if evidence is None or not evidence.enabled:
        return [
            "# output:  # evidence publication is off: the bundle carries no transcript text",
            "#   module: json",
        ]
    return [
        "output:",
        "  module: json",
        "  options:",
        "    # The transcript units each record cites, with window_units on each side, are",
        "    # published in evidence-context.json (the report quotes them). It holds",
        "    # transcript text: publish it only where the transcript may go. Broad lanes",
        "    # (scene descriptions) are left out unless named here.",
        "    evidence_context:",
        "      enabled: true",
        f"      window_units: {evidence.window_units}",
        "      lanes: [" + ", ".join(_scalar(lane) for lane in evidence.lanes) + "]",
    ]


def _extraction(extraction: ExtractionConfig) -> list[str]:
    defaults = ExtractionConfig()
    if extraction == defaults:
        return [
            "  # extraction:  # the model server of the lanes without engine: rules",
            "  #   base_url: http://localhost:11434/v1",
            "  #   model: qwen2.5:7b-instruct",
            f"  #   api_key_env: {API_KEY_VARIABLE}  # the variable's name, never the key",
        ]
    lines = ["  extraction:  # the model server of the lanes without engine: rules"]
    if extraction.engine != defaults.engine:
        lines.append(f"    engine: {extraction.engine}")
    if extraction.base_url is not None:
        lines.append(f"    base_url: {_scalar(extraction.base_url)}")
    if extraction.model is not None:
        lines.append(f"    model: {_scalar(extraction.model)}")
    if extraction.api_key_env is not None:
        lines.append(
            f"    api_key_env: {extraction.api_key_env}  # the variable's name, never the key"
        )
    if extraction.structured_output != defaults.structured_output:
        lines.append(f"    structured_output: {extraction.structured_output}")
    if extraction.requests != defaults.requests:
        lines.append(f"    requests: {extraction.requests}")
    if extraction.concurrency_auto:
        lines.append("    concurrency: auto")
    elif extraction.concurrency != defaults.concurrency:
        lines.append(f"    concurrency: {extraction.concurrency}")
    if extraction.timeout_s != defaults.timeout_s:
        lines.append(f"    timeout_s: {_number(extraction.timeout_s)}")
    if extraction.max_retries != defaults.max_retries:
        lines.append(f"    max_retries: {extraction.max_retries}")
    if extraction.requests_per_minute is not None:
        lines.append(f"    requests_per_minute: {extraction.requests_per_minute}")
    if extraction.temperature != defaults.temperature:
        lines.append(f"    temperature: {_number(extraction.temperature)}")
    return lines

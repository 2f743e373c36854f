"""``pipeline.extraction`` and a lane's ``engine``: the defaults and every error, exactly as
docs/configuration.md documents them; the prompts' sizes and statements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from streamer import api
from streamer.configuration.extraction_settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    DEFAULT_TIMEOUT_S,
    ExtractionConfig,
)
from streamer.extraction.requests import QUESTION_SEPARATOR, UNITS_HEADER, fixed_size
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.registry import ArtifactKind
from tests.support import REPO

DOCS = REPO / "docs"
LANES = "pipeline:\n  lanes: [{id: spells, artifact_kind: dnd/spell-casts}]\n"


def extraction(body: str) -> str:
    return LANES + "  extraction: " + body + "\n"


ERRORS = {
    extraction("[]"): "$.pipeline.extraction must be a mapping",
    extraction(
        "{url: x}"
    ): '$.pipeline.extraction: unknown member "url" (hint: accepted: api_key_env, base_url, concurrency, engine, max_retries, max_tokens, model, requests, requests_per_minute, stop_repeats, structured_output, temperature, timeout_s)',
    extraction("{engine: claude}"): "$.pipeline.extraction.engine must be one of: openai, rules",
    extraction(
        "{base_url: localhost:11434}"
    ): "$.pipeline.extraction.base_url must be an http:// or https:// URL (hint: the server's OpenAI-compatible root, e.g. http://localhost:11434/v1)",
    extraction(
        "{base_url: 'https://user:pw@api.example.com/v1'}"
    ): "$.pipeline.extraction.base_url must not carry credentials or a query (hint: name the key's environment variable in api_key_env)",
    extraction("{model: ''}"): "$.pipeline.extraction.model must be a non-empty string",
    extraction(
        "{api_key_env: sk-abc123}"
    ): "$.pipeline.extraction.api_key_env must be the name of an environment variable (hint: the variable's name (e.g. OPENAI_API_KEY), never the key itself)",
    extraction(
        "{structured_output: grammar}"
    ): "$.pipeline.extraction.structured_output must be one of: auto, json_schema, json_object_schema, json_object, none (hint: auto (the default) finds what the server takes)",
    extraction(
        "{requests: all}"
    ): "$.pipeline.extraction.requests must be one of: per-lane, combined (hint: combined asks every model lane of a chunk in one request)",
    extraction("{stop_repeats: 1}"): "$.pipeline.extraction.stop_repeats must be true or false",
    extraction("{max_tokens: 0}"): "$.pipeline.extraction.max_tokens must be an integer >= 1",
    "pipeline:\n  lanes: [{id: spells, artifact_kind: dnd/spell-casts, max_tokens: 1.5}]\n": "$.pipeline.lanes[0].max_tokens must be an integer >= 1",
    extraction("{concurrency: 0}"): "$.pipeline.extraction.concurrency must be an integer >= 1",
    extraction("{timeout_s: 0}"): "$.pipeline.extraction.timeout_s must be a number > 0",
    extraction("{max_retries: -1}"): "$.pipeline.extraction.max_retries must be an integer >= 0",
    extraction(
        "{requests_per_minute: 0}"
    ): "$.pipeline.extraction.requests_per_minute must be an integer >= 1",
    extraction(
        "{temperature: 3}"
    ): "$.pipeline.extraction.temperature must be a number from 0 to 2",
    "pipeline:\n  lanes: [{id: spells, artifact_kind: dnd/spell-casts, engine: gpt}]\n": "$.pipeline.lanes[0].engine must be one of: openai, rules",
}


def error_line(error: ConfigurationError) -> str:
    return f"streamer: error: {error.one_line()}"


@pytest.mark.parametrize("yaml_text", list(ERRORS))
def test_each_documented_extraction_error_is_the_real_one(tmp_path: Path, yaml_text: str) -> None:
    expected = f"streamer: error: {ERRORS[yaml_text]}"
    assert f"`{expected}`" in (DOCS / "configuration.md").read_text()
    path = tmp_path / "streamer.yaml"
    path.write_text(yaml_text)
    with pytest.raises(ConfigurationError) as raised:
        api.load_config(path)
    assert error_line(raised.value) == expected


EXTRACT_ERRORS = {
    "no base_url": (
        "pipeline:\n  lanes: [{id: spells, artifact_kind: dnd/spell-casts}]\n",
        None,
    ),
    "rules for a kind without rules": (
        "pipeline:\n  lanes: [{id: turns, artifact_kind: dnd/combat-turns, engine: rules}]\n",
        None,
    ),
    "no key": (
        extraction(
            "{base_url: 'http://127.0.0.1:9/v1', model: m, api_key_env: STREAMER_NO_SUCH_KEY}"
        ),
        None,
    ),
}


@pytest.mark.parametrize("name", list(EXTRACT_ERRORS))
def test_the_errors_streamer_extract_adds_are_documented(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STREAMER_NO_SUCH_KEY", raising=False)
    path = tmp_path / "streamer.yaml"
    path.write_text(EXTRACT_ERRORS[name][0])
    with pytest.raises(ConfigurationError) as raised:
        api.extract(api.load_config(path), tmp_path / "absent.jsonl", tmp_path / "out")
    documented = (DOCS / "configuration.md").read_text()
    line = error_line(raised.value).replace("STREAMER_NO_SUCH_KEY", "OPENAI_API_KEY")
    assert f"`{line}`" in documented


def test_the_defaults_are_the_documented_ones(tmp_path: Path) -> None:
    path = tmp_path / "streamer.yaml"
    path.write_text(LANES)
    config = api.load_config(path)
    assert config.extraction == ExtractionConfig()
    assert config.extraction.engine == "openai"
    assert config.extraction.structured_output == "auto"
    rows = {
        line.split("|")[1].strip(): line
        for line in (DOCS / "configuration.md").read_text().splitlines()
        if line.startswith("| `pipeline.extraction")
    }
    expected = {
        "engine": "`openai`",
        "structured_output": "`auto`",
        "requests": "`combined`",
        "max_tokens": f"`{DEFAULT_MAX_TOKENS}`",
        "concurrency": f"`{DEFAULT_CONCURRENCY}`",
        "timeout_s": f"`{DEFAULT_TIMEOUT_S:g}`",
        "max_retries": f"`{DEFAULT_MAX_RETRIES}`",
        "stop_repeats": "`true`",
        "temperature": f"`{DEFAULT_TEMPERATURE:g}`",
        "requests_per_minute": "absent (no limit)",
        "api_key_env": "absent (no key sent)",
    }
    for key, default in expected.items():
        assert f"| {default} |" in rows[f"`pipeline.extraction.{key}`"], key


def test_numbers_accept_integers_and_floats_but_not_booleans(tmp_path: Path) -> None:
    path = tmp_path / "streamer.yaml"
    path.write_text(extraction("{timeout_s: 30, temperature: 0.2, concurrency: 8}"))
    config = api.load_config(path).extraction
    assert (config.timeout_s, config.temperature, config.concurrency) == (30.0, 0.2, 8)
    path.write_text(extraction("{timeout_s: true}"))
    with pytest.raises(ConfigurationError, match="timeout_s must be a number > 0"):
        api.load_config(path)


# -- prompts -----------------------------------------------------------------------------------

STATEMENTS = [
    "Every field must be supported by the units you cite.",
    "Cite only unit IDs shown in the transcript",
    "No prose, no summary, no explanation: answer only with JSON.",
    "An empty list is a good answer",
    "[unit_id] speaker: text",
]
MAX_FIXED = 1500


def extracted_kinds() -> list[ArtifactKind[Any]]:
    return [kind for kind in api.default_registry() if kind.extraction is not None]


def test_each_prompt_states_the_question_and_the_rules_and_is_small() -> None:
    sizes = {}
    for kind in extracted_kinds():
        assert kind.extraction is not None
        prompt = kind.extraction.prompt
        assert prompt.id == f"{kind.name}@2"
        text = prompt.instructions
        assert f"Question: {kind.question}" in text
        for statement in STATEMENTS:  # the rules every lane shares, in the shared preamble
            assert statement in prompt.preamble and statement not in text, (kind.name, statement)
        for member in kind.model_record_schema()["properties"]:
            assert f'"{member}"' in text, (kind.name, member)
        assert f'"{kind.id_member}"' not in text
        sizes[kind.name] = fixed_size(prompt)
        assert sizes[kind.name] == (
            len(prompt.preamble) + len(UNITS_HEADER) + len(QUESTION_SEPARATOR) + len(text)
        )
        assert sizes[kind.name] <= MAX_FIXED
    assert (
        len({kind.extraction.prompt.preamble for kind in extracted_kinds() if kind.extraction}) == 1
    )
    documented = (DOCS / "extraction.md").read_text()
    for name, size in sizes.items():
        assert f"| `{name}` | `{name}@2` | {size} |" in documented

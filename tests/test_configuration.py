"""Every rule of the spec's Configuration Policy, each with its exact error."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from streamer.api import default_registry
from streamer.configuration import EvidenceContextConfig, resolve_configuration
from streamer.configuration.yaml_loader import load_yaml
from streamer.framework.errors.types import ConfigurationError

LANES = """
pipeline:
  lanes:
    - {id: spells, artifact_kind: dnd/spell-casts}
    - {id: npcs, artifact_kind: dnd/npcs}
    - {id: scenes, artifact_kind: dnd/scene-descriptions}
    - {id: roster, artifact_kind: dnd/party-roster}
"""


def resolve(text: str) -> Any:
    return resolve_configuration(load_yaml(text), default_registry())


def with_evidence(body: str) -> str:
    indented = "\n".join("      " + line for line in body.strip().splitlines())
    return LANES + "output:\n  module: json\n  options:\n    evidence_context:\n" + indented + "\n"


def error(text: str) -> str:
    with pytest.raises(ConfigurationError) as caught:
        resolve(text)
    assert caught.value.exit_status == 2
    return caught.value.one_line()


def test_omitting_evidence_context_disables_publication() -> None:
    config = resolve(LANES)
    assert config.evidence_context is None
    assert not config.evidence_enabled
    assert [lane.id for lane in config.lanes] == ["spells", "npcs", "scenes", "roster"]
    assert (config.chunking.max_units, config.chunking.overlap_units) == (100, 10)


def test_allowlist_is_trimmed_unique_and_sorted_with_default_window() -> None:
    config = resolve(with_evidence("enabled: true\nlanes: ['  spells ', npcs, scenes]"))
    assert config.evidence_context == EvidenceContextConfig(True, 3, ("npcs", "scenes", "spells"))


def test_window_zero_is_accepted() -> None:
    config = resolve(with_evidence("enabled: true\nwindow_units: 0\nlanes: [npcs]"))
    assert config.evidence_context == EvidenceContextConfig(True, 0, ("npcs",))


def test_enabled_false_stands_alone() -> None:
    assert resolve(with_evidence("enabled: false")).evidence_context == EvidenceContextConfig(False)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("window_units: 3", "$.output.options.evidence_context.enabled is required"),
        ("enabled: 'yes'", "$.output.options.evidence_context.enabled must be true or false"),
        (
            "enabled: false\nlanes: [npcs]",
            '$.output.options.evidence_context: unknown member "lanes"',
        ),
        (
            "enabled: false\nwindow_units: 3",
            '$.output.options.evidence_context: unknown member "window_units"',
        ),
        (
            "enabled: true\nlanes: [npcs]\nwindow_units: true",
            "window_units must be an integer from 0 to 1,000",
        ),
        (
            "enabled: true\nlanes: [npcs]\nwindow_units: 2.0",
            "window_units must be an integer from 0 to 1,000",
        ),
        (
            "enabled: true\nlanes: [npcs]\nwindow_units: -1",
            "window_units must be an integer from 0 to 1,000",
        ),
        (
            "enabled: true\nlanes: [npcs]\nwindow_units: '3'",
            "window_units must be an integer from 0 to 1,000",
        ),
        (
            "enabled: true\nlanes: [npcs]\nlimit: 5",
            '$.output.options.evidence_context: unknown member "limit"',
        ),
        ("enabled: true\nlanes: [npcs, ' npcs']", 'lanes[1]: duplicate lane ID "npcs"'),
        ("enabled: true\nlanes: [ghosts]", 'lanes[0]: "ghosts" is not a configured lane'),
        (
            "enabled: true\nlanes: [roster]",
            'lane "roster" has artifact kind dnd/party-roster, which cannot expose source evidence',
        ),
        ("enabled: true\nlanes: [7]", "lanes[0] must be a string"),
        ("enabled: true\nlanes: ['']", "is not a valid lane ID"),
        ("enabled: true\nlanes: npcs", "lanes must be a non-empty list of lane IDs"),
    ],
)
def test_evidence_context_errors(body: str, message: str) -> None:
    assert message in error(with_evidence(body))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "$ must be a mapping"),
        ("pipeline: {lanes: []}", "$.pipeline.lanes must be a non-empty list"),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/spells}]}",
            'unknown artifact kind "dnd/spells"',
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs, extra: 1}]}",
            '$.pipeline.lanes[0]: unknown member "extra"',
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}, {id: a, artifact_kind: dnd/npcs}]}",
            '$.pipeline.lanes[1].id: duplicate lane ID "a"',
        ),
        ("pipeline: {lanes: [{id: ../x, artifact_kind: dnd/npcs}]}", "is not a valid lane ID"),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}]}\nextra: 1",
            '$: unknown member "extra"',
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}]}\noutput: {module: csv}",
            "$.output.module must be one of: json",
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}]}\noutput: {module: json, options: {gzip: true}}",
            '$.output.options: unknown member "gzip"',
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}], chunking: {max_units: 0}}",
            "$.pipeline.chunking.max_units must be an integer from 1 to 10,000",
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}], chunking: {max_units: 5, overlap_units: 5}}",
            "overlap_units must be smaller than max_units",
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}], chunking: {size: 5}}",
            '$.pipeline.chunking: unknown member "size"',
        ),
        (
            "pipeline: {lanes: [{id: a, artifact_kind: dnd/npcs}]}\npipeline: {}",
            "configuration line 2: duplicate key pipeline",
        ),
        ("pipeline: [", "configuration is not valid YAML at line 1, column 12"),
    ],
)
def test_configuration_errors(text: str, message: str) -> None:
    assert message in error(text)


def test_the_demo_configuration_is_valid() -> None:
    from tests.support import REPO

    config = resolve((REPO / "fixtures" / "demo" / "streamer.yaml").read_text())
    assert config.evidence_context is not None
    assert config.evidence_context.lanes == (
        "combat-turns",
        "item-events",
        "npc-interactions",
        "npcs",
        "spells",
    )
    assert yaml.safe_load((REPO / "fixtures" / "demo" / "streamer.yaml").read_text())


@pytest.mark.parametrize("levels", [40, 10_000, 100_000])
@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_deep_yaml_is_a_configuration_error(levels: int, opener: str) -> None:
    if opener == "- ":
        text = "".join(f"{'  ' * level}-\n" for level in range(min(levels, 2000)))
    else:
        text = opener * levels + ("]" if opener == "[" else "}") * levels
    with pytest.raises(ConfigurationError, match="nested more than 32 levels deep"):
        load_yaml(text)


@pytest.mark.parametrize(
    ("chunking", "evidence", "expected"),
    [
        (
            "{max_units: " + "1" + "0" * 30 + "}",
            None,
            "max_units must be an integer from 1 to 10,000",
        ),
        ("{max_units: 10001}", None, "max_units must be an integer from 1 to 10,000"),
        (
            "{overlap_units: 10000, max_units: 10000}",
            None,
            "overlap_units must be an integer from 0 to 9,999",
        ),
        (None, "1" + "0" * 400, "window_units must be an integer from 0 to 1,000"),
        (None, "1001", "window_units must be an integer from 0 to 1,000"),
    ],
)
def test_unit_counts_have_a_documented_maximum(
    chunking: str | None, evidence: str | None, expected: str
) -> None:
    text = "pipeline:\n  lanes: [{id: npcs, artifact_kind: dnd/npcs}]\n"
    if chunking is not None:
        text += f"  chunking: {chunking}\n"
    if evidence is not None:
        text += (
            "output: {module: json, options: {evidence_context: "
            f"{{enabled: true, lanes: [npcs], window_units: {evidence}}}}}}}\n"
        )
    with pytest.raises(ConfigurationError, match=expected):
        resolve_configuration(load_yaml(text), default_registry())


def test_the_maxima_are_accepted() -> None:
    text = (
        "pipeline:\n  lanes: [{id: npcs, artifact_kind: dnd/npcs}]\n"
        "  chunking: {max_units: 10000, overlap_units: 9999}\n"
        "output: {module: json, options: {evidence_context: "
        "{enabled: true, lanes: [npcs], window_units: 1000}}}\n"
    )
    config = resolve_configuration(load_yaml(text), default_registry())
    assert (config.chunking.max_units, config.chunking.overlap_units) == (10_000, 9_999)
    assert config.evidence_context is not None
    assert config.evidence_context.window_units == 1_000

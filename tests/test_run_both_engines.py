"""Lanes on the rules and a model together (``engine: [rules, openai]``), against the
loopback fake model server: one candidates file a lane, each candidate naming its engine;
a record both engines find is one record (the nearby rule for spell casts, the registry
rule for NPCs); the receipt counts the records each engine found and both found."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from streamer import api
from streamer.configuration import resolve_configuration
from streamer.configuration.defaults import ModelServer, default_configuration, render
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.normalization.candidates import read_candidates_file
from tests.fake_openai import Reply, Request, fake_server
from tests.run_support import quiet

# Six units, two chunks of four sharing u000004. The rules find Thunderwave (u000002),
# Hunter's Mark (u000004), Grimgnaw and Brenna (the glossary's names); never the
# suggestion "Maybe we can do a Bless" nor "the old ferryman" (not a name).
TRANSCRIPT = """WEBVTT

00:00:01.000 --> 00:00:04.000
<v MATT>Grimgnaw raises his axe over the bridge.

00:00:05.000 --> 00:00:08.000
<v SAM>I cast Thunderwave at him!

00:00:09.000 --> 00:00:12.000
<v MATT>The Thunderwave blasts him back ten feet.

00:00:13.000 --> 00:00:16.000
<v LAURA>I cast Hunter's Mark on the chief.

00:00:17.000 --> 00:00:20.000
<v LAURA>Maybe we can do a Bless first.

00:00:21.000 --> 00:00:24.000
<v MATT>Brenna waves from the far side, beside the old ferryman.
"""
GLOSSARY = {
    "party": [
        {"player": "SAM", "character": "Scanlan"},
        {"player": "LAURA", "character": "Vex'ahlia"},
    ],
    "names": {"Grimgnaw": [], "Brenna": []},
}


def ref(unit: str) -> dict[str, str]:
    return {"start_unit_id": unit, "end_unit_id": unit}


def model_answer(request: Request) -> Reply:
    """The model's records: Thunderwave told in the narration (u000003, near the rules'
    u000002; no caster: the nearby rule keeps the rules' Scanlan), the suggested Bless (a model's mistake the rules do not make), Grimgnaw
    and the old ferryman; never Hunter's Mark or Brenna."""
    spells = b"Which spells were cast" in orjson.dumps(request.body["messages"])
    first = request.first_unit == "u000001"
    records: list[dict[str, Any]]
    if spells:
        records = (
            [{"spell": "Thunderwave", "caster": None, "source_refs": [ref("u000003")]}]
            if first
            else [{"spell": "Bless", "caster": None, "source_refs": [ref("u000005")]}]
        )
    else:
        records = (
            [{"name": "Grimgnaw", "source_refs": [ref("u000001")]}]
            if first
            else [{"name": "the old ferryman", "source_refs": [ref("u000006")]}]
        )
    return Reply(content=orjson.dumps({"records": records}).decode())


def write_inputs(root: Path, base_url: str, engine: Any) -> tuple[Path, Path]:
    (root / "glossary.yaml").write_text(yaml.safe_dump(GLOSSARY, sort_keys=False))
    transcript = root / "bridge.vtt"
    transcript.write_text(TRANSCRIPT)
    config = {
        "pipeline": {
            "lanes": [
                {"id": "spells", "artifact_kind": "dnd/spell-casts", "engine": engine},
                {"id": "npcs", "artifact_kind": "dnd/npcs", "engine": engine},
            ],
            "chunking": {"max_units": 4, "overlap_units": 1},
            "normalization": {"glossary": "glossary.yaml"},
            # per lane: model_answer answers one lane's request (combined requests:
            # tests/test_extract_combined.py, tests/test_server_unreachable.py)
            "extraction": {
                "base_url": base_url,
                "model": "fake-model",
                "max_retries": 0,
                "requests": "per-lane",
            },
        }
    }
    path = root / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path, transcript


def records(output: Path, lane: str) -> list[tuple[Any, ...]]:
    payload = orjson.loads((output / "lanes" / f"{lane}.json").read_bytes())
    return [
        tuple(value for key, value in record.items() if not key.endswith("_id"))
        for record in payload["records"]
    ]


def stage(result: api.RunResult, name: str) -> dict[str, Any]:
    (counts,) = [outcome.counts for outcome in result.stages if outcome.stage == name]
    return counts


def test_a_record_both_engines_find_is_one_record_and_the_receipt_counts_each(
    tmp_path: Path,
) -> None:
    output = tmp_path / "out"
    with fake_server(model_answer) as server:
        config, transcript = write_inputs(tmp_path, server.base_url, ["rules", "openai"])
        result = api.run(config, transcript, "webvtt", output, warn=quiet)
        assert len(server.requests) == 4  # two lanes, two chunks: the rules ask nothing
    assert result.exit_status == 0
    # Thunderwave: the rules' declaration and the model's narration, one cast (nearby)
    assert records(output, "spells") == [
        ("Thunderwave", "Scanlan", [ref("u000002"), ref("u000003")]),
        ("Hunter's Mark", "Vex'ahlia", [ref("u000004")]),
        ("Bless", None, [ref("u000005")]),
    ]
    # Grimgnaw: found by both, one NPC (registry)
    assert records(output, "npcs") == [
        ("Grimgnaw", [ref("u000001")]),
        ("Brenna", [ref("u000006")]),
        ("the old ferryman", [ref("u000006")]),
    ]
    lanes = {lane["lane_id"]: lane for lane in stage(result, "normalize")["lanes"]}
    assert lanes["spells"]["engines"] == {"rules": 2, "openai": 2, "both": 1}
    assert lanes["npcs"]["engines"] == {"rules": 2, "openai": 2, "both": 1}
    assert lanes["spells"]["records"] == 3
    extracted = stage(result, "extract")["lanes"]
    assert [(lane["lane_id"], lane["engine"], lane["candidates"]) for lane in extracted] == [
        ("spells", "rules", 3),  # Hunter's Mark in both chunks
        ("spells", "openai", 2),
        ("npcs", "rules", 2),
        ("npcs", "openai", 2),
    ]
    lines = (output.with_name("out.work") / "candidates" / "spells.jsonl").read_bytes()
    header, *candidates = [orjson.loads(line) for line in lines.splitlines()]
    assert "extractor" not in header
    assert [extractor["engine"] for extractor in header["extractors"]] == ["rules", "openai"]
    # each chunk's candidates engine by engine
    assert [(line["chunk_id"], line["engine"]) for line in candidates] == [
        ("chunk-000001", "rules"),
        ("chunk-000001", "rules"),
        ("chunk-000001", "openai"),
        ("chunk-000002", "rules"),
        ("chunk-000002", "openai"),
    ]


def test_one_engine_a_lane_keeps_its_file_and_receipt(tmp_path: Path) -> None:
    """``engine: [rules]`` is ``engine: rules``: no engines in the receipt, no tags."""
    output = tmp_path / "out"
    with fake_server(model_answer) as server:
        config, transcript = write_inputs(tmp_path, server.base_url, ["rules"])
        result = api.run(config, transcript, "webvtt", output, warn=quiet)
        assert server.requests == []
    lanes = stage(result, "normalize")["lanes"]
    assert [sorted(lane) for lane in lanes] == [
        ["accepted", "candidates", "lane_id", "records", "rejected"]
    ] * 2
    lines = (output.with_name("out.work") / "candidates" / "spells.jsonl").read_bytes()
    header, first, *_ = [orjson.loads(line) for line in lines.splitlines()]
    assert header["extractor"] == {"engine": "rules", "prompt": "dnd/spell-casts-rules@7"}
    assert sorted(first) == ["chunk_id", "record"]


def test_the_model_engine_failing_keeps_the_rules_part_of_the_lane(tmp_path: Path) -> None:
    def refuse(request: Request) -> Reply:
        return Reply(status=400, content=None, body=b'{"error": "refused"}')

    output = tmp_path / "out"
    with fake_server(refuse) as server:
        config, transcript = write_inputs(tmp_path, server.base_url, ["rules", "openai"])
        result = api.run(config, transcript, "webvtt", output, warn=quiet)
        alone = tmp_path / "alone"
        alone.mkdir()
        rules, _ = write_inputs(alone, server.base_url, "rules")
        api.run(rules, transcript, "webvtt", alone / "out", warn=quiet)
    assert result.exit_status == 4
    assert stage(result, "extract")["failed_lanes"] == []  # each lane wrote the rules' part
    # each lane's first failed chunk: which one depends on the order answers arrive in
    assert [re.sub(r"chunk-\d+", "chunk-N", line) for line in result.failures] == [
        f"the openai part of lane {lane} failed in extract (chunk-N: the server refused the "
        "request (HTTP 400)); the bundle was published with its other engines' records only "
        "(hint: the server may not take this request: try structured_output: auto; then run "
        "again: only what is missing is redone)"
        for lane in ("spells", "npcs")
    ]
    for lane in ("spells", "npcs"):  # what the rules alone publish
        assert records(output, lane) == records(alone / "out", lane)
    assert records(output, "spells")


def test_the_default_configuration_runs_a_kind_with_rules_on_both() -> None:
    registry = api.default_registry()
    server = ModelServer("http://127.0.0.1:9/v1", "m")
    named = {lane.id: lane for lane in default_configuration(registry, server).lanes}
    alone = {lane.id: lane for lane in default_configuration(registry, None).lanes}
    for lane_id, lane in alone.items():  # without a model: the rules alone, as before
        assert (lane.engine, lane.engines) == ("rules", ())
        assert (named[lane_id].engine, named[lane_id].engines) == (None, ("rules", "openai"))
    assert set(named) - set(alone) == {"combat-turns", "npc-interactions", "scene-descriptions"}
    # what config --show prints resolves to the same lanes
    text = render(default_configuration(registry, server), title="t")
    again = resolve_configuration(yaml.safe_load(text), registry)
    assert again.lanes == default_configuration(registry, server).lanes


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        ([], "$.pipeline.lanes[0].engine must be an engine or a non-empty list of engines"),
        (["rules", "rules"], "$.pipeline.lanes[0].engine[1]: engine rules is named twice"),
        (["rules", "gpt"], "$.pipeline.lanes[0].engine[1] must be one of: openai, rules"),
    ],
)
def test_a_bad_list_of_engines_is_one_error(engine: Any, message: str) -> None:
    data = {"pipeline": {"lanes": [{"id": "s", "artifact_kind": "dnd/spell-casts"}]}}
    data["pipeline"]["lanes"][0]["engine"] = engine
    with pytest.raises(ConfigurationError) as caught:
        resolve_configuration(data, api.default_registry())
    assert caught.value.message == message


def test_a_tagged_candidate_must_name_an_engine_of_its_header(tmp_path: Path) -> None:
    source = {"document_id": "d", "semantic_digest": "sha256:" + "0" * 64}
    head = {"lane_id": "s", "artifact_kind": "dnd/spell-casts", "source": source}
    two = [{"engine": "rules"}, {"engine": "openai", "model": "m"}]
    path = tmp_path / "s.jsonl"
    lines = [
        {**head, "extractors": two},
        {"chunk_id": "c", "engine": "openai", "record": {}},
        {"chunk_id": "c", "engine": "other", "record": {}},
        {"chunk_id": "c", "record": {}},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    read = read_candidates_file(path, "s", "dnd/spell-casts")
    assert read.header.engines == ("rules", "openai")
    assert [(raw.line, raw.engine) for raw in read.candidates] == [(2, "openai")]
    assert [(r.line, r.reason, r.path) for r in read.rejections] == [
        (3, "invalid_candidate", "$.engine"),
        (4, "invalid_candidate", "$.engine"),
    ]
    same = [{"engine": "rules"}, {"engine": "rules"}]
    path.write_bytes(orjson.dumps({**head, "extractors": same}) + b"\n")
    with pytest.raises(InputError) as caught:
        read_candidates_file(path, "s", "dnd/spell-casts")
    assert caught.value.message == (
        "candidates s.jsonl line 1: $.extractors[1] must be an object of strings naming an "
        "engine no other extractor names"
    )

"""``streamer run`` with no configuration, and the configuration it runs with: shown by
``streamer config --show`` (the lanes of the built-in rules, every kind's lane when a model
server is named) and written by ``streamer init``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from streamer import api
from tests.bundle_support import receipt
from tests.run_support import RULES_LANES, in_folder, stage_counts
from tests.support import Run, invoke

# (fixture, the format it is found to be, units imported)
FIXTURES = [
    ("bridge.vtt", "webvtt", 7),
    ("bridge.srt", "srt", 6),
    ("bridge.txt", "text", 11),
    ("bridge-crd3.json", "crd3", 6),
    ("bridge-whisperx.json", "whisperx", 5),
]


@pytest.mark.parametrize(("name", "found", "units"), FIXTURES)
def test_run_with_no_configuration_on_each_format(
    tmp_path: Path, name: str, found: str, units: int
) -> None:
    in_folder(tmp_path, name)
    result = receipt(invoke(["run", name, "--output", "out/session"], cwd=_with_out(tmp_path)))
    assert result["status"] == "ok"
    assert stage_counts(result, "import")["units"] == units
    # no model server named: the lanes of the built-in rules only, evidence published
    assert result["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        *(f"lanes/{lane}.json" for lane in RULES_LANES),
    ]
    index = orjson.loads((tmp_path / "out" / "session" / "index.json").read_bytes())
    assert [lane["lane_id"] for lane in index["lanes"]] == RULES_LANES
    evidence = orjson.loads((tmp_path / "out" / "session" / "evidence-context.json").read_bytes())
    assert evidence["lanes"] == RULES_LANES
    assert (tmp_path / "out" / "session.html").is_file()
    # the work folder's source is what `streamer import` makes of the file in that format
    imported = invoke(["import", found, name], cwd=tmp_path)  # ID: the file name's stem
    assert imported.status == 0
    assert (tmp_path / "out" / "session.work" / "source.jsonl").read_bytes() == imported.stdout


def _with_out(folder: Path) -> Path:
    (folder / "out").mkdir()
    return folder


def test_config_show_prints_the_default_configuration_which_runs_the_same(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.vtt")
    shown = invoke(["config", "--show"], cwd=tmp_path)
    assert (shown.status, shown.stderr) == (0, "")
    text = shown.stdout.decode("utf-8")
    assert text.startswith("# The default configuration of streamer run without --config")
    kinds = {lane: kind.name for kind in api.default_registry() for lane in [kind.default_lane]}
    assert yaml.safe_load(text) == {
        "pipeline": {
            "lanes": [
                {"id": lane, "artifact_kind": kinds[lane], "engine": "rules"}
                for lane in RULES_LANES
            ],
            "chunking": {"max_units": 100, "overlap_units": 10},
        },
        "output": {
            "module": "json",
            "options": {
                "evidence_context": {"enabled": True, "window_units": 3, "lanes": RULES_LANES}
            },
        },
    }
    (tmp_path / "streamer.yaml").write_bytes(shown.stdout)
    receipt(invoke(["run", "bridge.vtt", "--output", "default"], cwd=tmp_path))
    receipt(
        invoke(
            ["run", "bridge.vtt", "--output", "saved", "--config", "streamer.yaml"], cwd=tmp_path
        )
    )
    lanes = [f"lanes/{lane}.json" for lane in RULES_LANES]
    for name in ("index.json", "evidence-context.json", *lanes, "chunk-map.json"):
        assert (tmp_path / "saved" / name).read_bytes() == (
            tmp_path / "default" / name
        ).read_bytes()


def test_model_lanes_only_when_a_model_server_is_named(tmp_path: Path) -> None:
    named = invoke(
        ["config", "--show", "--model-url", "http://localhost:8080/v1", "--model", "qwen"]
    )
    config = yaml.safe_load(named.stdout)
    lanes = {lane["id"]: lane.get("engine") for lane in config["pipeline"]["lanes"]}
    assert lanes == {
        "combat-turns": None,
        "npc-interactions": None,
        "scene-descriptions": None,
        **{lane: ["rules", "openai"] for lane in RULES_LANES},  # both: rules and the model
    }
    assert config["pipeline"]["extraction"] == {
        "base_url": "http://localhost:8080/v1",
        "model": "qwen",
    }
    # scene descriptions are never allowlisted by default (the spec's policy)
    assert config["output"]["options"]["evidence_context"]["lanes"] == [
        "combat-turns",
        "item-events",
        "npc-interactions",
        "npcs",
        "places",
        "spells",
    ]
    # the conventional variables name the same server; the key by its variable's name only
    env = {"OPENAI_BASE_URL": "http://localhost:8080/v1", "OPENAI_MODEL": "qwen"}
    from_env = run_env(["config", "--show"], {**env, "OPENAI_API_KEY": "sk-secret"})
    assert b"sk-secret" not in from_env.stdout
    assert yaml.safe_load(from_env.stdout)["pipeline"]["extraction"] == {
        "base_url": "http://localhost:8080/v1",
        "model": "qwen",
        "api_key_env": "OPENAI_API_KEY",
    }
    no_model = invoke(["run", "x.vtt", "--output", "o", "--model-url", "http://h/v1"])
    assert (no_model.status, no_model.stderr) == (
        2,
        "streamer: error: --model-url names a model server but no model (hint: give --model "
        "NAME (or set OPENAI_MODEL), e.g. --model qwen2.5:7b-instruct)\n",
    )
    with_config = invoke(
        ["run", "x.vtt", "--output", "o", "--config", "c.yaml", "--model", "m"], cwd=tmp_path
    )
    assert with_config.stderr == (
        "streamer: error: --model applies only without --config (hint: the configuration "
        "names its server in pipeline.extraction)\n"
    )


def run_env(args: list[str], env: dict[str, str]) -> Run:
    return invoke(args, env=env)


def test_init_writes_a_configuration_and_a_glossary_and_never_replaces_them(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.txt")
    first = invoke(["init", "campaign"], cwd=tmp_path)
    assert (first.status, first.stdout, first.stderr) == (
        0,
        b"campaign/streamer.yaml\ncampaign/glossary.yaml\n",
        "",
    )
    config = yaml.safe_load((tmp_path / "campaign" / "streamer.yaml").read_text())
    assert config["pipeline"]["normalization"] == {"glossary": "glossary.yaml"}
    assert [lane["id"] for lane in config["pipeline"]["lanes"]] == [*RULES_LANES, "party-roster"]
    assert yaml.safe_load((tmp_path / "campaign" / "glossary.yaml").read_text()) == {
        "party": [],
        "names": {},
        "spells": {},
    }
    (tmp_path / "campaign" / "glossary.yaml").write_text("party: []\nnames: {}\n# mine\n")
    again = invoke(["init", "campaign"], cwd=tmp_path)
    assert (again.status, again.stdout) == (2, b"")
    assert again.stderr == (
        "streamer: error: campaign/streamer.yaml already exists; streamer init never replaces "
        "a file (hint: edit it, or init another folder: streamer init DIR)\n"
    )
    assert (tmp_path / "campaign" / "glossary.yaml").read_text().endswith("# mine\n")
    ran = receipt(
        invoke(
            ["run", "bridge.txt", "--config", "campaign/streamer.yaml", "--output", "s"],
            cwd=tmp_path,
        )
    )
    assert ran["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        *sorted(f"lanes/{lane}.json" for lane in [*RULES_LANES, "party-roster"]),
    ]

"""A third-party plugin, installed as a user installs one, runs through every command.

``tests/plugins`` is the package ``streamer-tavern``: the ``tavern/oaths`` kind with its
rules, the ``chatlog`` format and the ``lexicon`` engine, registered by entry points in its
own ``pyproject.toml`` (nothing in ``streamer/`` names them). The session installs it into a
folder of its own (its package and the metadata setuptools writes from its
``pyproject.toml``, with the entry points streamer reads); the commands run with that folder
on their path, so no other test sees the plugin. Then import -> extract -> normalize -> bundle -> validate -> report.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer.framework.json.canonical import canonical
from tests.support import REPO, Run, run_cli

PLUGIN = REPO / "tests" / "plugins"

CHATLOG = (
    "[20:01] Vex: I swear on my life, we will find him.\n"
    "[20:02] Grog: Where is the ale?\n"
    "[20:02] Scanlan: I swear I did not take it.\n"
    "\n"
    "[20:03] Pike: I vow to stand by you.\n"
    "[20:04] Keyleth: i SWEAR it.\n"
)

CONFIG = """\
pipeline:
  lanes:
    - {id: oaths, artifact_kind: tavern/oaths, engine: rules}
    - {id: vows, artifact_kind: tavern/oaths, engine: lexicon}
  chunking: {max_units: 3, overlap_units: 1}
output:
  module: json
  options:
    evidence_context: {enabled: true, window_units: 0, lanes: [oaths, vows]}
"""


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin installed in a folder of its own: its package, and the metadata its build
    backend (setuptools) writes from its ``pyproject.toml`` (``egg_info``: the
    ``entry_points.txt`` that ``importlib.metadata`` reads, as for any installed package;
    the venv's setuptools builds no wheel without the ``wheel`` package, so pip is not
    asked)."""
    build = tmp_path_factory.mktemp("build") / "streamer-tavern"
    shutil.copytree(PLUGIN, build)
    target = tmp_path_factory.mktemp("site")
    setup = "import setuptools; setuptools.setup()"
    subprocess.run(
        [sys.executable, "-c", setup, "--quiet", "egg_info", "--egg-base", str(target)],
        check=True,
        capture_output=True,
        cwd=build,
    )
    shutil.copytree(build / "streamer_tavern", target / "streamer_tavern")
    return target


def streamer(site: Path, folder: Path, *args: str) -> Run:
    run = run_cli(list(args), cwd=folder, path=[site])
    assert (run.status, run.stderr) == (0, ""), (args, run.stderr)
    return run


def ref(unit_id: str) -> dict[str, str]:
    return {"start_unit_id": unit_id, "end_unit_id": unit_id}


def oath_id(lane_id: str, sworn_by: str, binding: str, unit_id: str, position: int) -> str:
    """The ID normalization gives (``docs/normalization.md``), computed independently."""
    key = {"binding": binding, "sworn_by": sworn_by.casefold()}
    digest = hashlib.sha256(canonical(["tavern", lane_id, key, position])).hexdigest()
    return f"oath-{digest[:16]}"


def records(folder: Path, lane_id: str) -> list[dict[str, Any]]:
    payload = orjson.loads((folder / "bundle" / "lanes" / f"{lane_id}.json").read_bytes())
    assert payload["artifact_kind"] == "tavern/oaths"
    found: list[dict[str, Any]] = payload["records"]
    return found


def test_the_plugin_runs_through_the_command_line(site: Path, tmp_path: Path) -> None:
    (tmp_path / "tavern.chat").write_text(CHATLOG, encoding="utf-8")
    (tmp_path / "streamer.yaml").write_text(CONFIG, encoding="utf-8")
    streamer(site, tmp_path, "import", "chatlog", "tavern.chat", "--output", "s.jsonl")
    lines = [orjson.loads(line) for line in (tmp_path / "s.jsonl").read_bytes().splitlines()]
    assert lines[0]["document_id"] == "tavern"
    assert [
        (u["unit_id"], u["metadata"]["speaker"], u["metadata"]["start_ms"]) for u in lines[1:]
    ] == [
        ("m00001", "Vex", 72_060_000),
        ("m00002", "Grog", 72_120_000),
        ("m00003", "Scanlan", 72_120_000),
        ("m00005", "Pike", 72_180_000),
        ("m00006", "Keyleth", 72_240_000),
    ]

    config = ("--config", "streamer.yaml", "--source", "s.jsonl")
    extracted = orjson.loads(
        streamer(site, tmp_path, "extract", *config, "--output-dir", "candidates").stdout
    )
    lanes = {lane["lane_id"]: lane for lane in extracted["lanes"]}
    assert {
        lane_id: (lane["engine"], lane["prompt"], lane["candidates"])
        for lane_id, lane in lanes.items()
    } == {
        "oaths": ("rules", "tavern/oaths-rules@1", 4),  # Scanlan's line is in both chunks
        "vows": ("lexicon", "tavern/lexicon@1", 1),
    }
    streamer(
        site,
        tmp_path,
        "normalize",
        *config,
        "--candidates-dir",
        "candidates",
        "--output-dir",
        "lanes",
    )
    streamer(site, tmp_path, "bundle", *config, "--lanes-dir", "lanes", "--output", "bundle")

    assert records(tmp_path, "oaths") == [
        {"oath_id": oath_id("oaths", "Vex", "heavy", "m00001", 0), "sworn_by": "Vex", "binding": "heavy", "source_refs": [ref("m00001")]},
        {"oath_id": oath_id("oaths", "Scanlan", "light", "m00003", 2), "sworn_by": "Scanlan", "binding": "light", "source_refs": [ref("m00003")]},
        {"oath_id": oath_id("oaths", "Keyleth", "light", "m00006", 4), "sworn_by": "Keyleth", "binding": "light", "source_refs": [ref("m00006")]},
    ]  # fmt: skip
    assert records(tmp_path, "vows") == [
        {"oath_id": oath_id("vows", "Pike", "heavy", "m00005", 3), "sworn_by": "Pike", "binding": "heavy", "source_refs": [ref("m00005")]},
    ]  # fmt: skip

    valid = orjson.loads(streamer(site, tmp_path, "validate", "bundle").stdout)
    assert (valid["status"], valid["document_id"]) == ("valid", "tavern")
    streamer(site, tmp_path, "report", "bundle", "--output", "report.html")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "tavern/oaths" in page and "Which oaths are sworn, and by whom?" in page

    listed = streamer(site, tmp_path, "schema", "--list").stdout.decode().split()
    assert "notarius.tavern.oaths" in listed
    schema = orjson.loads(streamer(site, tmp_path, "schema", "notarius.tavern.oaths").stdout)
    assert schema["$defs"]["record"]["required"] == [
        "oath_id",
        "sworn_by",
        "binding",
        "source_refs",
    ]


def test_the_plugin_shows_in_the_help_and_its_errors(site: Path, tmp_path: Path) -> None:
    page = " ".join(streamer(site, tmp_path, "import", "--help").stdout.decode().split())
    assert "one of: chatlog, crd3, srt, text, webvtt, whisperx (also vtt for webvtt," in page
    (tmp_path / "bad.chat").write_text("[20:01] Vex: fine\nSECRET words\n", encoding="utf-8")
    run = run_cli(["import", "chatlog", "bad.chat"], cwd=tmp_path, path=[site])
    assert (run.status, run.stdout) == (3, b"")
    assert run.stderr == (
        "streamer: error: chatlog bad.chat: line 2: not a chat message "
        "(hint: each line is '[HH:MM] Name: text')\n"
    )
    (tmp_path / "streamer.yaml").write_text(
        "pipeline:\n  lanes: [{id: npcs, artifact_kind: dnd/npcs, engine: lexicon}]\n",
        encoding="utf-8",
    )
    (tmp_path / "s.jsonl").write_bytes(b"")
    run = run_cli(
        ["extract", "--config", "streamer.yaml", "--source", "s.jsonl", "--output-dir", "c"],
        cwd=tmp_path,
        path=[site],
    )
    assert (run.status, run.stderr) == (
        2,
        'streamer: error: lane "npcs": engine lexicon does not extract artifact kind dnd/npcs '
        "(hint: engine lexicon extracts: tavern/oaths; give this lane engine: openai or rules)\n",
    )

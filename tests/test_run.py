"""``streamer run``: one transcript through every stage; the same bytes as the commands
run one by one; a rerun runs only what is missing; ``--lane``; safe destinations."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from streamer.api import stages
from streamer.api.runs import report_path_of, work_folder_of
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.source.accepted import AcceptedSource, UnitIndex
from streamer.framework.source.reader import SourceDocumentReader
from tests.bundle_support import CRD3_EPISODES
from tests.run_support import (
    BATCH,
    CONFIG,
    IMPORT,
    TRANSCRIPT,
    StageCalls,
    by_hand,
    quiet,
    statuses,
    tree,
)
from tests.support import invoke

AVAILABLE = [stage.name for stage in stages.STAGES]


def run(
    tmp: Path, *args: str, name: str = "out", config: Path = CONFIG
) -> tuple[int, dict[str, Any] | None, str]:
    result = invoke(
        [
            "run",
            "--config",
            str(config),
            str(TRANSCRIPT),
            "--format",
            "text",
            "--output",
            name,  # as a user types it, in the folder
            *args,
        ],
        cwd=tmp,
    )
    receipt = orjson.loads(result.stdout) if result.status == 0 else None
    return result.status, receipt, result.stderr


def test_run_publishes_the_bundle_the_commands_publish_one_by_one(tmp_path: Path) -> None:
    status, receipt, stderr = run(tmp_path)
    assert status == 0, stderr
    assert receipt is not None
    reference = by_hand(tmp_path / "by-hand", TRANSCRIPT, "text", "bridge")
    assert tree(tmp_path / "out") == tree(reference)
    assert (tmp_path / "out.html").read_bytes() == (reference.parent / "bundle.html").read_bytes()
    assert receipt["report"] == "out.html"
    assert receipt["status"] == "ok"
    assert receipt["document_id"] == "bridge"
    assert receipt["files"] == sorted(tree(reference))
    assert statuses(receipt) == [
        ("import", "ran"),
        ("extract", "ran"),
        ("normalize", "ran"),
        ("bundle", "ran"),
        ("report", "ran"),
    ]
    counts = {stage["stage"]: stage["counts"] for stage in receipt["stages"]}
    assert counts["import"]["units"] == 11
    (spells,) = counts["extract"]["lanes"]
    assert (spells["engine"], spells["chunks"], spells["candidates"]) == ("rules", 4, 1)
    assert [(lane["lane_id"], lane["records"]) for lane in counts["normalize"]["lanes"]] == [
        ("spells", 1)
    ]
    assert (counts["report"]["lanes"], counts["report"]["records"]) == (1, 1)
    # normalized_lanes counts lane payloads only, never the evidence context
    assert receipt["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        "lanes/spells.json",
    ]
    assert receipt["normalized_lanes"] == counts["bundle"]["normalized_lanes"] == 1
    records = orjson.loads((tmp_path / "out" / "lanes" / "spells.json").read_bytes())["records"]
    assert [record["spell"] for record in records] == ["Feather Fall"]
    work = tmp_path / "out.work"
    assert sorted(path.name for path in (work / "stages").iterdir()) == sorted(
        f"{name}.json" for name in AVAILABLE
    )
    # the work folder and its copy of the transcript are the owner's alone, whatever the
    # umask; what is published gets the umask's permissions, as cp and mkdir give them
    assert stat.S_IMODE(work.stat().st_mode) == 0o700
    assert stat.S_IMODE((work / "source.jsonl").stat().st_mode) == 0o600
    umask = os.umask(0)
    os.umask(umask)
    for path in [tmp_path / "out", *(tmp_path / "out").rglob("*"), tmp_path / "out.html"]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o777 if path.is_dir() else 0o666) & ~umask, path


def test_a_rerun_runs_no_stage_and_publishes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    output = tmp_path / "out"
    first = api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    published = tree(output)
    inode = (output / "index.json").stat().st_ino
    second = api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    assert counter.calls == {name: 1 for name in AVAILABLE}
    assert [outcome.status for outcome in first.stages if outcome.stage in AVAILABLE] == [
        "ran"
    ] * len(AVAILABLE)
    assert [outcome.status for outcome in second.stages if outcome.stage in AVAILABLE] == [
        "skipped"
    ] * len(AVAILABLE)
    assert second.receipt()["files"] == first.receipt()["files"]
    assert tree(output) == published
    assert (output / "index.json").stat().st_ino == inode  # not even republished


def test_after_an_interruption_in_the_bundle_stage_the_rerun_runs_only_that_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    output = tmp_path / "out"
    counter.fail_in = "bundle"
    with pytest.raises(KeyboardInterrupt):
        api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    assert not output.exists()  # a failed run publishes nothing
    assert not report_path_of(output).exists()
    assert sorted(os.listdir(tmp_path)) == ["out.work"]
    counter.fail_in = None
    result = api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    before_bundle = AVAILABLE[: AVAILABLE.index("bundle")]
    # each stage before the bundle ran once, the bundle twice, the ones after it once
    assert counter.calls == {name: 2 if name == "bundle" else 1 for name in AVAILABLE}
    assert [(o.stage, o.status) for o in result.stages if o.stage in AVAILABLE] == [
        (name, "skipped" if name in before_bundle else "ran") for name in AVAILABLE
    ]
    reference = by_hand(tmp_path / "by-hand", TRANSCRIPT, "text", "bridge")
    assert tree(output) == tree(reference)


def copied_config(root: Path) -> Path:
    """The batch fixtures' configuration and glossary, copied into ``root``."""
    for name in ("streamer.yaml", "glossary.yaml"):
        shutil.copy(BATCH / name, root / name)
    return root / "streamer.yaml"


def test_a_changed_input_or_configuration_reruns_the_stages_that_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    transcript = tmp_path / "session.txt"
    shutil.copy(TRANSCRIPT, transcript)
    config = copied_config(tmp_path)
    output = tmp_path / "out"
    api.run(config, transcript, "text", output, warn=quiet)
    with open(config, "a", encoding="utf-8") as out:
        out.write("# a comment changes the file's digest\n")
    changed = api.run(config, transcript, "text", output, warn=quiet)
    # import and report do not read the configuration; the bundle came out the same, so
    # the report (which reads only the bundle) is skipped too
    assert [(o.stage, o.status) for o in changed.stages] == [
        ("import", "skipped"),
        ("extract", "ran"),
        ("normalize", "ran"),
        ("bundle", "ran"),
        ("report", "skipped"),
    ]
    transcript.write_bytes(transcript.read_bytes().replace(b"goblin", b"kobold"))
    again = api.run(config, transcript, "text", output, warn=quiet)
    assert [o.status for o in again.stages] == ["ran"] * 5
    assert counter.calls == {"import": 2, "extract": 3, "normalize": 3, "bundle": 3, "report": 2}
    assert again.semantic_digest != changed.semantic_digest


def test_a_work_folder_output_changed_by_hand_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    output = tmp_path / "out"
    api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    source = work_folder_of(output) / "source.jsonl"
    source.write_bytes(source.read_bytes() + b"\n")
    api.run(CONFIG, TRANSCRIPT, "text", output, warn=quiet)
    assert counter.calls["import"] == 2


def test_lane_selects_the_lanes_of_the_run(tmp_path: Path) -> None:
    config = copied_config(tmp_path)
    # a second lane asks a model at an address where nothing listens: --lane spells never
    # asks it, and runs only the rules
    config.write_text(
        config.read_text()
        .replace(
            "    - {id: spells,",
            "    - {id: npcs, artifact_kind: dnd/npcs}\n    - {id: spells,",
        )
        .replace("lanes: [spells]", "lanes: [spells, npcs]")
        .replace(
            "  normalization:",
            "  extraction: {base_url: 'http://127.0.0.1:9/v1', model: fake}\n  normalization:",
        )
    )
    status, receipt, stderr = run(tmp_path, "--lane", "spells", config=config)
    assert status == 0, stderr
    assert receipt is not None
    assert receipt["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        "lanes/spells.json",
    ]
    assert receipt["normalized_lanes"] == 1
    extract = receipt["stages"][1]["counts"]
    assert [lane["lane_id"] for lane in extract["lanes"]] == ["spells"]
    evidence = orjson.loads((tmp_path / "out" / "evidence-context.json").read_bytes())
    # the evidence document still records the whole configured allowlist
    assert evidence["lanes"] == ["npcs", "spells"]
    status, _, stderr = run(tmp_path, "--lane", "scenes", name="other", config=config)
    assert status == 2
    assert stderr == (
        "streamer: error: --lane 'scenes' is not a configured lane "
        "(hint: configured lanes: npcs, spells)\n"
    )
    assert not (tmp_path / "other").exists()
    assert not (tmp_path / "other.work").exists()


def test_an_output_the_run_did_not_make_is_replaced_only_with_force(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    status, _, stderr = run(tmp_path)
    assert status == 2
    assert stderr == (
        "streamer: error: output out is a folder without index.json, not a bundle; it is "
        "never replaced (hint: choose another --output, or remove the folder yourself)\n"
    )
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"
    shutil.rmtree(tmp_path / "out")
    by_hand(tmp_path / "elsewhere", IMPORT / "bridge.txt", "text", "other")
    shutil.copytree(tmp_path / "elsewhere" / "bundle", tmp_path / "out")
    status, _, stderr = run(tmp_path)
    assert status == 2
    assert stderr == (
        "streamer: error: output out already exists (hint: use --force to replace it)\n"
    )
    assert not (tmp_path / "out.work").exists()
    status, _, stderr = run(tmp_path, "--force")
    assert status == 0, stderr
    reference = by_hand(tmp_path / "by-hand", TRANSCRIPT, "text", "bridge")
    assert tree(tmp_path / "out") == tree(reference)


@pytest.mark.parametrize(
    ("transcript", "format_name", "message"),
    [
        ("-", "webvtt", "streamer run reads a transcript file, not standard input"),
        (
            "missing.vtt",
            "webvtt",
            f"transcript {IMPORT / 'missing.vtt'} does not exist or is not a file",
        ),
        ("bridge.vtt", "docx", 'unknown import format "docx"'),
    ],
)
def test_usage_errors_come_before_any_stage(
    tmp_path: Path, transcript: str, format_name: str, message: str
) -> None:
    path = transcript if transcript == "-" else os.fspath(IMPORT / transcript)
    with pytest.raises(ConfigurationError) as raised:
        api.run(CONFIG, path, format_name, tmp_path / "out", warn=quiet)
    assert raised.value.message == message
    assert os.listdir(tmp_path) == []


def test_a_bad_transcript_fails_with_status_3_and_publishes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.vtt"
    broken.write_text("not WebVTT\n")
    result = invoke(
        [
            "run",
            "--config",
            str(CONFIG),
            "broken.vtt",
            "--format",
            "webvtt",
            "--output",
            "out",
        ],
        cwd=tmp_path,
    )
    assert result.status == 3
    assert result.stdout == b""
    assert result.stderr == (
        "streamer: error: webvtt broken.vtt: line 1: a WebVTT file must start with WEBVTT\n"
    )
    # the import failed: nothing to resume, so no copy of the transcript is kept
    assert sorted(os.listdir(tmp_path)) == ["broken.vtt"]


def test_a_changed_glossary_reruns_extraction_normalization_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    config = copied_config(tmp_path)
    output = tmp_path / "out"
    api.run(config, TRANSCRIPT, "text", output, warn=quiet)
    with open(tmp_path / "glossary.yaml", "a", encoding="utf-8") as out:
        out.write("# changed\n")
    again = api.run(config, TRANSCRIPT, "text", output, warn=quiet)
    # the glossary is read by extraction (the party: the rules' casters), normalization and
    # the report (the party: the speakers' characters); the lane outputs are the same, so
    # the bundle is skipped
    assert [(o.stage, o.status) for o in again.stages] == [
        ("import", "skipped"),
        ("extract", "ran"),
        ("normalize", "ran"),
        ("bundle", "skipped"),
        ("report", "ran"),
    ]
    assert counter.calls == {"import": 1, "extract": 2, "normalize": 2, "bundle": 1, "report": 2}


def test_a_lane_that_is_never_extracted_runs_from_the_glossary(tmp_path: Path) -> None:
    config = copied_config(tmp_path)
    config.write_text(
        config.read_text().replace(
            "    - {id: spells,",
            "    - {id: party, artifact_kind: dnd/party-roster}\n    - {id: spells,",
        )
    )
    status, receipt, stderr = run(tmp_path, config=config)
    assert status == 0, stderr
    assert receipt is not None
    assert receipt["files"][-2:] == ["lanes/party.json", "lanes/spells.json"]
    assert receipt["stages"][1]["counts"]["lanes"][0]["lane_id"] == "spells"
    party = orjson.loads((tmp_path / "out" / "lanes" / "party.json").read_bytes())["records"]
    assert party == [
        {"player": "JUNE", "character": "Sel"},
        {"player": "OSKAR", "character": "Brannoc"},
        {"player": "TEO", "character": "Pip"},
    ]
    status, receipt, stderr = run(tmp_path, "--lane", "party", name="only-party", config=config)
    assert status == 0, stderr
    assert receipt is not None
    assert receipt["files"][-1] == "lanes/party.json"
    assert receipt["stages"][1]["counts"] == {"chunks": 0, "lanes": [], "failed_lanes": []}


def test_an_extraction_setting_missing_fails_before_any_stage(tmp_path: Path) -> None:
    config = copied_config(tmp_path)
    config.write_text(config.read_text().replace(", engine: rules}", "}"))
    status, _, stderr = run(tmp_path, config=config)
    assert status == 2
    assert stderr == (
        'streamer: error: $.pipeline.extraction.base_url is required: lane "spells" uses '
        "engine openai (hint: see docs/extraction.md for each server, or give the lane engine: "
        "rules)\n"
    )
    assert sorted(os.listdir(tmp_path)) == ["glossary.yaml", "streamer.yaml"]


CRD3_CONFIG = """\
pipeline:
  lanes:
    - {id: spells, artifact_kind: dnd/spell-casts, engine: rules}
    - {id: npcs, artifact_kind: dnd/npcs, engine: rules}
    - {id: places, artifact_kind: dnd/places, engine: rules}
    - {id: party, artifact_kind: dnd/party-roster}
  chunking: {max_units: 40, overlap_units: 3}
  normalization: {glossary: glossary.yaml}
output:
  module: json
  options:
    evidence_context: {enabled: true, window_units: 2, lanes: [spells, npcs, places]}
"""
CRD3_GLOSSARY = """\
party:  # by player
  - {player: ASHLEY, character: Pike}
  - {player: LAURA, character: "Vex'ahlia"}
  - {player: LIAM, character: "Vax'ildan"}
  - {player: MARISHA, character: Keyleth}
  - {player: ORION, character: Tiberius}
  - {player: SAM, character: Scanlan}
  - {player: TALIESIN, character: Percy}
  - {player: TRAVIS, character: Grog}
names:
  Gilmore: []
  Kima: []
  Allura: []
  Jester: []
  Nott: []
  Fjord: []
"""


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("interrupted_in", [None, "normalize"])
def test_a_crd3_episode_publishes_what_the_commands_publish_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interrupted_in: str | None
) -> None:
    """Every stage after the import reads the document the run accepted, without checking
    it again: the same bytes as the commands, each of which checks it; also when the rerun
    after an interruption starts after the import (its identity from the import's record)."""
    episode = CRD3_EPISODES[-1]
    config = tmp_path / "streamer.yaml"
    config.write_text(CRD3_CONFIG, encoding="utf-8")
    (tmp_path / "glossary.yaml").write_text(CRD3_GLOSSARY, encoding="utf-8")
    output = tmp_path / "out"
    counter = StageCalls(monkeypatch)
    checked: list[object] = []  # the readers that validate a source document
    original = SourceDocumentReader.__init__

    def reader(self: SourceDocumentReader, *args: Any, **kwargs: Any) -> None:
        checked.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(SourceDocumentReader, "__init__", reader)
    passes: list[str] = []  # the passes of normalize and bundle over the accepted document
    batches = AcceptedSource.batches

    hits: list[bool] = []  # whether each batch said where the wanted IDs are

    def batches_of(self: AcceptedSource, *args: Any) -> Any:
        passes.append("index" if self.index and self.index.complete else "lines")
        for batch in batches(self, *args):
            hits.append(batch.hits is not None)
            yield batch

    monkeypatch.setattr(AcceptedSource, "batches", batches_of)
    reads: list[str] = []  # the passes over its lines
    blocks = AcceptedSource.blocks

    def blocks_of(self: AcceptedSource, *args: Any) -> Any:
        reads.append("lines")
        return blocks(self, *args)

    monkeypatch.setattr(AcceptedSource, "blocks", blocks_of)
    seeks: list[int] = []  # the blocks read by position (normalize, after extraction's index)
    block = UnitIndex.block

    def block_of(self: UnitIndex, number: int) -> Any:
        seeks.append(number)
        return block(self, number)

    monkeypatch.setattr(UnitIndex, "block", block_of)
    if interrupted_in is not None:
        counter.fail_in = interrupted_in
        with pytest.raises(KeyboardInterrupt):
            api.run(config, episode, "crd3", output, warn=quiet)
        counter.fail_in = None
    passes.clear()
    reads.clear()
    seeks.clear()
    hits.clear()
    result = api.run(config, episode, "crd3", output, warn=quiet)
    assert checked == []  # the import checked every unit as it wrote them: no stage again
    # extraction reads the lines and writes the index that bundle reads instead, and
    # normalize only the blocks its candidates cite (the report then knows where they are);
    # a rerun that starts after extraction has no index: they read the lines, and the
    # report reads their IDs once more to place the records in the session
    assert passes == (3 * ["lines"] if interrupted_in else ["index"])
    assert bool(seeks) is not bool(interrupted_in)
    # and bundle finds its references where normalize found them, in the same run
    assert set(hits) == {not interrupted_in}
    # extraction surveys the session in a first pass over the lines (the NPC and place
    # rules' miner), then answers its rules lanes in one more; a rerun that starts after
    # extraction reads them three times (normalize, bundle and the report, without an index)
    assert len(reads) == (3 if interrupted_in else 2)
    reference = by_hand(tmp_path / "by-hand", episode, "crd3", episode.stem, config)
    # extract, normalize, bundle and report (the records' places), each by its own command
    assert len(checked) == 4
    assert tree(output) == tree(reference)
    assert report_path_of(output).read_bytes() == (reference.parent / "bundle.html").read_bytes()
    assert (work_folder_of(output) / "source.jsonl").read_bytes() == (
        reference.parent / "source.jsonl"
    ).read_bytes()
    skipped = {"import", "extract"} if interrupted_in else set()
    assert [(o.stage, o.status) for o in result.stages] == [
        (name, "skipped" if name in skipped else "ran") for name in AVAILABLE
    ]
    counts = {outcome.stage: outcome.counts for outcome in result.stages}
    # something to compare: records in every extracted lane, several chunks, evidence
    assert all(lane["candidates"] > 0 for lane in counts["extract"]["lanes"])
    assert counts["extract"]["chunks"] > 50
    assert counts["report"]["contexts"] > 10


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
def test_lanes_extracted_together_write_the_files_each_writes_alone(tmp_path: Path) -> None:
    """Extraction answers every lane of a chunk in one pass: each lane's candidates file is
    the one extracting that lane alone writes."""
    episode = CRD3_EPISODES[0]
    config_path = tmp_path / "streamer.yaml"
    config_path.write_text(CRD3_CONFIG, encoding="utf-8")
    (tmp_path / "glossary.yaml").write_text(CRD3_GLOSSARY, encoding="utf-8")
    config = api.load_config(config_path)
    source = tmp_path / "source.jsonl"
    api.import_transcript("crd3", episode, document_id=episode.stem, output=source)
    together = api.extract(config, source, tmp_path / "together")
    lanes = ["spells", "npcs", "places"]
    for lane in lanes:
        api.extract(config, source, tmp_path / lane, lanes=[lane])
    files = tree(tmp_path / "together")
    assert sorted(files) == sorted(f"{lane}.jsonl" for lane in lanes)
    for lane in lanes:
        assert files[f"{lane}.jsonl"] == tree(tmp_path / lane)[f"{lane}.jsonl"]
    assert all(lane["candidates"] > 0 for lane in together.receipt()["lanes"])

"""Real transcripts: the four CRD3 episodes of shared/data/crd3, imported, their summary
alignments turned into a scene-descriptions lane and projected as evidence.

The data is read in place (never copied into the repository); the tests skip when the
folder is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from streamer.framework.chunking.chunker import Chunker
from tests.support import CRD3, config_dict, invoke, lane_output, ref, scene

EPISODES = ["C1E001", "C1E002", "C2E001", "C2E010"]


def _episode(name: str) -> tuple[Path, Path]:
    episode = CRD3 / "episodes" / f"{name}.json"
    alignment = CRD3 / "alignments" / f"{name}_2_0.json"
    if not episode.is_file() or not alignment.is_file():
        pytest.skip(f"the CRD3 sample ({CRD3}) is absent")
    return episode, alignment


def _import(episode: Path, out: Path, *options: str) -> tuple[dict[str, Any], list[Any]]:
    run = invoke(["import", "crd3", str(episode), "--output", str(out), *options])
    assert (run.status, run.stdout, run.stderr) == (0, b"", "")
    lines = out.read_bytes().splitlines()
    return orjson.loads(lines[0]), [orjson.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("name", EPISODES)
def test_crd3_episode_imports_one_unit_per_turn(name: str, tmp_path: Path) -> None:
    episode, _ = _episode(name)
    turns = json.loads(episode.read_text(encoding="utf-8"))["TURNS"]
    header, units = _import(episode, tmp_path / "source.jsonl")
    assert header["document_id"] == name
    assert len(units) == len(turns)
    assert [unit["unit_id"] for unit in units] == [f"t{turn['NUMBER']:05d}" for turn in turns]
    for unit, turn in zip(units, turns, strict=True):
        assert unit["kind"] == "utterance"
        assert unit["metadata"] == {"speaker": ", ".join(turn["NAMES"])}
        assert unit["text"] == " ".join(line.strip() for line in turn["UTTERANCES"])
    again = invoke(["import", "crd3", str(episode)])
    assert again.stdout == (tmp_path / "source.jsonl").read_bytes()


def test_crd3_known_turn() -> None:
    episode, _ = _episode("C1E001")
    run = invoke(["import", "crd3", str(episode)])
    assert run.status == 0, run.stderr
    units = [orjson.loads(line) for line in run.stdout.splitlines()[1:]]
    assert units[104] == {
        "unit_id": "t00104",
        "kind": "utterance",
        "text": "Thank you, sir.",
        "metadata": {"speaker": "LAURA"},
    }
    assert units[38]["metadata"] == {"speaker": "ORION, MATT"}


@pytest.mark.parametrize("name", EPISODES)
def test_crd3_line_units_count_the_utterances(name: str, tmp_path: Path) -> None:
    episode, _ = _episode(name)
    turns = json.loads(episode.read_text(encoding="utf-8"))["TURNS"]
    _, units = _import(episode, tmp_path / "lines.jsonl", "--unit", "line")
    assert [unit["unit_id"] for unit in units] == [
        f"t{turn['NUMBER']:05d}-{line:02d}"
        for turn in turns
        for line in range(1, len(turn["UTTERANCES"]) + 1)
    ]


@pytest.mark.parametrize("name", EPISODES)
def test_crd3_alignments_as_scene_evidence(name: str, tmp_path: Path) -> None:
    episode, alignment_file = _episode(name)
    alignments = [item["ALIGNMENT"] for item in json.loads(alignment_file.read_text("utf-8"))]
    source = tmp_path / "source.jsonl"
    header, units = _import(episode, source)
    position = {unit["unit_id"]: index for index, unit in enumerate(units)}
    ranges = {(f"t{a['TURN START']:05d}", f"t{a['TURN END']:05d}") for a in alignments}

    lanes_dir = tmp_path / "lanes"
    lanes_dir.mkdir()
    records = [
        scene(f"scene-{a['CHUNK ID']}", ref(f"t{a['TURN START']:05d}", f"t{a['TURN END']:05d}"))
        for a in alignments
    ]
    lane = lane_output(
        "scene-descriptions",
        records,
        document_id=header["document_id"],
        digest=header["semantic_digest"],
    )
    (lanes_dir / "scene-descriptions.json").write_bytes(orjson.dumps(lane))
    config = tmp_path / "streamer.yaml"
    config.write_text(
        yaml.safe_dump(config_dict(["scene-descriptions"], ["scene-descriptions"], window=0))
    )
    args = ["--config", str(config), "--source", str(source), "--lanes-dir", str(lanes_dir)]
    run = invoke(["evidence", *args])
    assert (run.status, run.stderr) == (0, "")
    document = orjson.loads(run.stdout)
    assert document["source"] == header
    assert document["lanes"] == ["scene-descriptions"]
    contexts = document["contexts"]

    # Every alignment's turn range is a direct reference, cited by the scene lane only.
    references = [
        (r["source_ref"]["start_unit_id"], r["source_ref"]["end_unit_id"])
        for context in contexts
        for r in context["references"]
    ]
    assert set(references) == ranges
    assert len(references) == len(ranges)  # distinct
    assert all(r["lane_ids"] == ["scene-descriptions"] for c in contexts for r in c["references"])
    # References in document order: by start position, then end position.
    keys = [(position[start], position[end]) for start, end in references]
    assert keys == sorted(keys)

    # Contexts in document order, disjoint and not touching; units consecutive; none twice.
    published = [u["unit_id"] for context in contexts for u in context["units"]]
    assert len(published) == len(set(published))
    previous_end = -2
    for context in contexts:
        start, end = position[context["start_unit_id"]], position[context["end_unit_id"]]
        assert start > previous_end + 1
        assert [u["unit_id"] for u in context["units"]] == [
            units[p]["unit_id"] for p in range(start, end + 1)
        ]
        for reference_start, reference_end in (
            (r["source_ref"]["start_unit_id"], r["source_ref"]["end_unit_id"])
            for r in context["references"]
        ):
            assert start <= position[reference_start] <= position[reference_end] <= end
        previous_end = end

    # With window 0 the published units are exactly the union of the aligned turns.
    covered = {
        unit_id
        for start, end in ranges
        for unit_id in (units[p]["unit_id"] for p in range(position[start], position[end] + 1))
    }
    assert set(published) == covered
    # Published units carry the imported text, the self-reference and the speaker.
    by_id = {unit["unit_id"]: unit for unit in units}
    for context in contexts:
        for u in context["units"]:
            assert u == {
                **by_id[u["unit_id"]],
                "source_ref": {"start_unit_id": u["unit_id"], "end_unit_id": u["unit_id"]},
            }
            assert list(u) == ["unit_id", "kind", "text", "source_ref", "metadata"]


def test_crd3_episode_chunks_are_the_chunkers(tmp_path: Path) -> None:
    episode, _ = _episode("C2E001")
    source = tmp_path / "source.jsonl"
    _, units = _import(episode, source)
    config = tmp_path / "streamer.yaml"
    config.write_text(yaml.safe_dump(config_dict(["spells"], None)))  # default 100 / 10
    run = invoke(["chunk", "--config", str(config), "--source", str(source)])
    assert (run.status, run.stderr) == (0, "")
    chunker: Chunker[str] = Chunker(100, 10)
    ids = [unit["unit_id"] for unit in units]
    expected = [chunk for unit_id in ids for chunk in chunker.add(unit_id)]
    expected.extend(chunker.finish())
    got = [orjson.loads(line) for line in run.stdout.splitlines()]
    assert len(got) == len(expected) == 18  # 1627 turns: starts 0, 90, ..., 1530
    assert [[u["unit_id"] for u in chunk["units"]] for chunk in got] == [
        list(chunk.items) for chunk in expected
    ]
    assert [(c["chunk_id"], c["start_unit_id"], c["end_unit_id"]) for c in got][-1] == (
        "chunk-000018",
        "t01530",
        "t01626",
    )

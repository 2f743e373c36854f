"""Real transcripts: the CRD3 episodes in ``../shared/data/crd3`` (CC BY-SA 4.0), converted
here to source documents, with the dataset's summary alignments (real third-party
citations of turn ranges) as a ``scene-descriptions`` lane. Skipped when absent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support import CRD3, config_dict, invoke, lane_output, scene

EPISODES = sorted(p.stem for p in (CRD3 / "episodes").glob("*.json")) if CRD3.is_dir() else []
pytestmark = pytest.mark.skipif(not EPISODES, reason="../shared/data/crd3 is not present")


def turn_id(number: int) -> str:
    # Unpadded on purpose: "t10" sorts before "t2" as text; only positions order units.
    return f"t{number}"


def convert(episode: str, folder: Path) -> tuple[Path, list[int], Any]:
    turns = json.loads((CRD3 / "episodes" / f"{episode}.json").read_text())["TURNS"]
    source = folder / f"{episode}.jsonl"
    with source.open("wb") as out:
        out.write(orjson.dumps({"document_id": f"crd3-{episode.lower()}"}) + b"\n")
        for turn in turns:
            unit = {
                "unit_id": turn_id(turn["NUMBER"]),
                "kind": "utterance",
                "text": " ".join(turn["UTTERANCES"]),
                "metadata": {"speaker": ", ".join(turn["NAMES"])},
            }
            out.write(orjson.dumps(unit) + b"\n")
    alignments = json.loads((CRD3 / "alignments" / f"{episode}_2_0.json").read_text())
    return source, [t["NUMBER"] for t in turns], alignments


@pytest.mark.parametrize("episode", EPISODES)
def test_crd3_alignments_project_as_scene_evidence(tmp_path: Path, episode: str) -> None:
    source, numbers, alignments = convert(episode, tmp_path)
    window = 2
    records = [
        scene(
            f"scene-{a['ALIGNMENT']['CHUNK ID']}",
            {
                "start_unit_id": turn_id(a["ALIGNMENT"]["TURN START"]),
                "end_unit_id": turn_id(a["ALIGNMENT"]["TURN END"]),
            },
        )
        for a in alignments
    ]
    # The digest is computed by streamer: ask it first with an empty lane set.
    lanes_dir = tmp_path / "lanes"
    lanes_dir.mkdir()
    config = tmp_path / "streamer.yaml"
    config.write_bytes(
        orjson.dumps(config_dict(["scene-descriptions"], ["scene-descriptions"], window))
    )
    args = [
        "evidence",
        "--config",
        str(config),
        "--source",
        str(source),
        "--lanes-dir",
        str(lanes_dir),
    ]
    empty = orjson.loads(invoke(args).stdout)
    assert empty["contexts"] == []
    payload = lane_output(
        "scene-descriptions",
        records,
        document_id=empty["source"]["document_id"],
        digest=empty["source"]["semantic_digest"],
    )
    (lanes_dir / "scene-descriptions.json").write_bytes(orjson.dumps(payload))

    run = invoke(args)
    assert run.status == 0, run.stderr
    document = orjson.loads(run.stdout)
    position = {turn_id(n): i for i, n in enumerate(numbers)}

    # Brute force: the covered positions and their runs.
    covered: set[int] = set()
    for a in alignments:
        low = max(0, position[turn_id(a["ALIGNMENT"]["TURN START"])] - window)
        high = min(len(numbers) - 1, position[turn_id(a["ALIGNMENT"]["TURN END"])] + window)
        covered.update(range(low, high + 1))
    published = [u["unit_id"] for c in document["contexts"] for u in c["units"]]
    assert [position[u] for u in published] == sorted(covered)
    assert len(published) == len(set(published))

    cited = {
        (r["source_ref"]["start_unit_id"], r["source_ref"]["end_unit_id"])
        for c in document["contexts"]
        for r in c["references"]
    }
    assert cited == {
        (r["source_ref"]["start_unit_id"], r["source_ref"]["end_unit_id"]) for r in records
    }
    for context in document["contexts"]:
        ids = [u["unit_id"] for u in context["units"]]
        assert (ids[0], ids[-1]) == (context["start_unit_id"], context["end_unit_id"])
        for reference in context["references"]:
            assert reference["lane_ids"] == ["scene-descriptions"]
            assert reference["source_ref"]["start_unit_id"] in ids
            assert reference["source_ref"]["end_unit_id"] in ids
    starts = [position[c["start_unit_id"]] for c in document["contexts"]]
    assert starts == sorted(starts)

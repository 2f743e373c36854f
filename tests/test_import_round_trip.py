"""Round trip: import a transcript, then publish evidence for lanes citing its unit IDs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.import_cases import CASE_IDS, CASES, FIXTURES, ImportCase
from tests.support import config_dict, invoke, lane_output, npc, published_form, ref, spell

# Per case: a range for the npcs lane and one unit for the spells lane, with a gap between.
CITED = {
    "text": (("u000003", "u000004"), "u000011"),
    "webvtt": (("u000002", "u000003"), "u000006"),
    "srt": (("u000001", "u000002"), "u000005"),
    "srt-plain": (("u000001", "u000002"), "u000005"),
    "whisperx": (("u000002", "u000003"), "u000005"),
    "crd3": (("t00001", "t00003"), "t00010"),
    "crd3-line": (("t00000-02", "t00002-01"), "t00010-01"),
}


def _import(case: ImportCase, tmp_path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    source = tmp_path / "source.jsonl"
    run = invoke(case.args(None, "--output", str(source)))
    assert (run.status, run.stderr) == (0, "")
    lines = source.read_bytes().splitlines()
    return orjson.loads(lines[0]), [orjson.loads(line) for line in lines[1:]]


def _write_lanes(tmp_path: Path, header: dict[str, Any], lanes: dict[str, Any]) -> Path:
    lanes_dir = tmp_path / "lanes"
    lanes_dir.mkdir()
    for lane_id, records in lanes.items():
        document = lane_output(
            lane_id,
            records,
            document_id=header["document_id"],
            digest=header["semantic_digest"],
        )
        (lanes_dir / f"{lane_id}.json").write_bytes(orjson.dumps(document))
    return lanes_dir


def _context(
    units: list[dict[str, Any]], start: str, end: str, references: list[tuple[dict[str, str], str]]
) -> dict[str, Any]:
    ids = [unit["unit_id"] for unit in units]
    chosen = units[ids.index(start) : ids.index(end) + 1]
    return {
        "start_unit_id": start,
        "end_unit_id": end,
        "references": [
            {"source_ref": reference, "lane_ids": [lane]} for reference, lane in references
        ],
        "units": [published_form(unit) for unit in chosen],
    }


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_imported_transcript_publishes_exact_evidence(case: ImportCase, tmp_path: Path) -> None:
    header, units = _import(case, tmp_path)
    (first, last), single = CITED[case.name]
    lanes_dir = _write_lanes(
        tmp_path,
        header,
        {"npcs": [npc("npc-1", ref(first, last))], "spells": [spell("spell-1", ref(single))]},
    )
    config = tmp_path / "streamer.yaml"
    config.write_text(yaml.safe_dump(config_dict(["npcs", "spells"], ["npcs", "spells"], 0)))
    run = invoke(
        [
            "evidence",
            "--config",
            str(config),
            "--source",
            str(tmp_path / "source.jsonl"),
            "--lanes-dir",
            str(lanes_dir),
        ]
    )
    assert (run.status, run.stderr) == (0, "")
    document = orjson.loads(run.stdout)
    assert document["source"] == header
    assert document["lanes"] == ["npcs", "spells"]
    assert document["contexts"] == [
        _context(units, first, last, [(ref(first, last), "npcs")]),
        _context(units, single, single, [(ref(single), "spells")]),
    ]


def test_committed_demo_lanes_cite_the_imported_webvtt_fixture(tmp_path: Path) -> None:
    """make demo: import bridge.vtt, then evidence with fixtures/import/lanes (window 0)."""
    case = next(case for case in CASES if case.name == "webvtt")
    header, units = _import(case, tmp_path)
    run = invoke(
        [
            "evidence",
            "--config",
            str(FIXTURES / "streamer.yaml"),
            "--source",
            str(tmp_path / "source.jsonl"),
            "--lanes-dir",
            str(FIXTURES / "lanes"),
        ]
    )
    assert (run.status, run.stderr) == (0, "")
    document = orjson.loads(run.stdout)
    assert document["source"] == header
    assert document["window_units"] == 0
    # npcs cites u000003..u000005 and combat-turns u000006: touching ranges, one context.
    assert document["contexts"] == [
        _context(
            units,
            "u000003",
            "u000006",
            [(ref("u000003", "u000005"), "npcs"), (ref("u000006"), "combat-turns")],
        )
    ]

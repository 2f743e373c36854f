"""Same inputs, same bytes: across runs, across the JSON and JSON Lines forms of one
document, and from standard input as from a file."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.support import invoke, json_bytes, npc, ref, spell, units, write_case

IDS = [f"x{(i * 7) % 40}" for i in range(40)]
LANES = {
    "spells": [spell("c1", ref("x7", "x28")), spell("c2", ref("x35"))],
    "npcs": [npc("n1", ref("x35"), ref("x3", "x10"))],
}


def test_output_is_byte_identical_across_runs_forms_and_stdin(tmp_path: Path) -> None:
    case = write_case(tmp_path, units(IDS), LANES, window=2)
    first = invoke(case.args())
    assert first.status == 0, first.stderr
    assert first.stdout.endswith(b"]}\n")
    assert invoke(case.args()).stdout == first.stdout

    from_stdin = invoke(case.args(source="-"), input=case.source.read_bytes())
    assert from_stdin.stdout == first.stdout

    json_form = tmp_path / "source.json"
    json_form.write_bytes(json_bytes(case.document_id, units(IDS), units_first=True, indent=True))
    assert invoke(case.args(source=str(json_form))).stdout == first.stdout
    assert invoke(case.args(source="-"), input=json_form.read_bytes()).stdout == first.stdout

    to_file = tmp_path / "evidence.json"
    assert invoke(case.args("--output", str(to_file))).status == 0
    assert to_file.read_bytes() == first.stdout


def test_lane_filter_records_the_whole_allowlist(tmp_path: Path) -> None:
    case = write_case(tmp_path, units(IDS), LANES, window=0)
    run = invoke(case.args("--lane", "npcs"))
    assert run.status == 0
    document = orjson.loads(run.stdout)
    assert document["lanes"] == ["npcs", "spells"]
    lanes_cited = {
        lane for c in document["contexts"] for r in c["references"] for lane in r["lane_ids"]
    }
    assert lanes_cited == {"npcs"}
    # x35 is at position 5, x3..x10 at positions 29..30: document order, not ID order.
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in document["contexts"]] == [
        ("x35", "x35"),
        ("x3", "x10"),
    ]

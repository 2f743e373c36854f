"""The demo fixture works end to end through the command line."""

import orjson

from tests.support import REPO, invoke


def test_demo_evidence_is_published_to_stdout() -> None:
    demo = REPO / "fixtures" / "demo"
    run = invoke(
        [
            "evidence",
            "--config",
            str(demo / "streamer.yaml"),
            "--source",
            str(demo / "session.jsonl"),
            "--lanes-dir",
            str(demo / "lanes"),
        ]
    )
    assert run.status == 0, run.stderr
    assert run.stderr == ""
    document = orjson.loads(run.stdout)
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in document["contexts"]] == [
        ("t0100", "t0105"),
        ("t0099b", "t0122"),
    ]
    assert document["lanes"] == [
        "combat-turns",
        "item-events",
        "npc-interactions",
        "npcs",
        "spells",
    ]

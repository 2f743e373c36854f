"""``streamer eval BUNDLE REVIEW``: the game master's review as a reference."""

from __future__ import annotations

from pathlib import Path

import orjson

from streamer.validation.review import Mark, Review, review_bytes
from tests.report_support import demo_bundle
from tests.support import invoke

DIGEST = "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6"


def test_precision_over_the_reviewed_records_per_lane_and_stale_ids(tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path / "session")
    marks = {
        "spell-1": Mark("accepted"),
        "spell-2": Mark("rejected", "wrong caster"),
        "turn-1": Mark("accepted"),
        "spell-99": Mark("rejected"),
    }
    review = tmp_path / "marks.json"
    review.write_bytes(review_bytes(Review("demo-slayers-take", DIGEST, marks)))
    result = invoke(["eval", str(bundle), str(review), "--json"])
    assert (result.status, result.stderr) == (0, "")
    scored = orjson.loads(result.stdout)
    rows = {row.pop("lane_id"): row for row in scored["lanes"]}
    assert rows["spells"] == {
        "published": 2,
        "accepted": 1,
        "rejected": 1,
        "unreviewed": 0,
        "precision": 0.5,
        "reviewed": 1.0,
    }
    assert rows["combat-turns"] == {
        "published": 3,
        "accepted": 1,
        "rejected": 0,
        "unreviewed": 2,
        "precision": 1.0,
        "reviewed": 0.3333,
    }
    assert rows["npcs"]["precision"] is None
    assert rows["(all)"] == {
        "published": 10,
        "accepted": 2,
        "rejected": 1,
        "unreviewed": 7,
        "precision": 0.6667,
        "reviewed": 0.3,
    }
    assert scored["stale"] == ["spell-99"]
    table = invoke(["eval", str(bundle), str(review)])
    assert table.stdout.decode().splitlines()[-1] == "stale (no longer in the bundle): spell-99"
    assert "wrong caster" not in table.stdout.decode()
    floors = invoke(["eval", str(bundle), str(review), "--min-precision", "0.9"])
    assert floors.status == 2
    assert floors.stderr.partition(" (hint: ")[0] == (
        "streamer: error: a review as REFERENCE takes no floors, --source or --glossary"
    )

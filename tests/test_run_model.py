"""``streamer run`` against the loopback fake model server: one request per chunk, none
again after an interruption between stages, only the missing chunks after a lane failed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from streamer import api
from tests.fake_openai import Reply, Request, fake_server
from tests.run_support import IMPORT, StageCalls, by_hand, quiet, tree

TRANSCRIPT = IMPORT / "bridge.vtt"  # seven units: two chunks of four, one shared


def write_config(root: Path, base_url: str) -> Path:
    config = {
        "pipeline": {
            "lanes": [{"id": "npcs", "artifact_kind": "dnd/npcs"}],
            "chunking": {"max_units": 4, "overlap_units": 1},
            "extraction": {"base_url": base_url, "model": "fake-model", "max_retries": 0},
        },
        "output": {
            "module": "json",
            "options": {
                "evidence_context": {"enabled": True, "window_units": 0, "lanes": ["npcs"]}
            },
        },
    }
    path = root / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def npc_answer(request: Request) -> Reply:
    """One NPC, cited by the chunk's first unit that says it (the support check reads it)."""
    saying = [
        line.split("]")[0].lstrip("[")
        for line in request.units.splitlines()
        if line.startswith("[") and "goblin" in line.casefold()
    ]
    unit = saying[0] if saying else request.first_unit
    record = {"name": "Goblin", "source_refs": [{"start_unit_id": unit, "end_unit_id": unit}]}
    return Reply(content=orjson.dumps({"records": [record]}).decode())


def test_run_asks_once_per_chunk_and_a_rerun_after_an_interruption_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = StageCalls(monkeypatch)
    output = tmp_path / "out"
    with fake_server(npc_answer) as server:
        config = write_config(tmp_path, server.base_url)
        counter.fail_in = "normalize"  # interrupted between extraction and normalization
        with pytest.raises(KeyboardInterrupt):
            api.run(config, TRANSCRIPT, "webvtt", output, warn=quiet)
        assert len(server.requests) == 2  # one request per chunk
        assert not output.exists()
        counter.fail_in = None
        result = api.run(config, TRANSCRIPT, "webvtt", output, warn=quiet)
        assert len(server.requests) == 2  # the rerun asked nothing
        assert [(o.stage, o.status) for o in result.stages] == [
            ("import", "skipped"),
            ("extract", "skipped"),
            ("normalize", "ran"),
            ("bundle", "ran"),
            ("report", "ran"),
        ]
        assert counter.calls == {
            "import": 1,
            "extract": 1,
            "normalize": 2,
            "bundle": 1,
            "report": 1,
        }
        reference = by_hand(tmp_path / "by-hand", TRANSCRIPT, "webvtt", "bridge", config)
        assert len(server.requests) == 4  # the commands run by hand asked again
    assert tree(output) == tree(reference)
    npcs = orjson.loads((output / "lanes" / "npcs.json").read_bytes())["records"]
    assert [record["name"] for record in npcs] == ["Goblin"]
    assert result.receipt()["status"] == "ok"


def test_a_lane_that_failed_is_asked_again_only_for_its_missing_chunks(
    tmp_path: Path,
) -> None:
    refused = {"second chunk": True}

    def script(request: Request) -> Reply:
        if request.first_unit != "u000001" and refused["second chunk"]:
            return Reply(status=400, content=None, body=b'{"error": "refused"}')
        return npc_answer(request)

    output = tmp_path / "out"
    with fake_server(script) as server:
        config = write_config(tmp_path, server.base_url)
        first = api.run(config, TRANSCRIPT, "webvtt", output, warn=quiet)
        assert first.exit_status == 4
        assert first.receipt()["status"] == "incomplete"
        (line,) = first.failures
        assert line == (
            "lane npcs failed in extract (chunk-000002: the server refused the request (HTTP "
            "400)); the bundle was published without it (hint: the server may not take this "
            "request: try structured_output: auto; then run again: only what is missing is "
            "redone)"
        )
        assert first.receipt()["files"] == ["chunk-map.json", "evidence-context.json", "index.json"]
        asked = len(server.requests)
        assert asked == 2
        refused["second chunk"] = False
        second = api.run(config, TRANSCRIPT, "webvtt", output, warn=quiet)
        assert len(server.requests) == asked + 1  # only the chunk that had failed
        assert second.exit_status == 0
        assert second.failures == ()
        assert second.receipt()["files"][-1] == "lanes/npcs.json"

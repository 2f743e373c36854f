"""A model server that cannot be reached fails the run's asking at once, in one line for
every model lane, naming the URL and the remedy; the rules' lanes, and the rules' part of the lanes on both, are still published."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import orjson
import pytest

from streamer.extraction.transport_errors import unreachable as _unreachable
from tests.support import REPO, invoke

SESSION = REPO / "fixtures" / "quickstart" / "session.vtt"
HINT = "is the model server running? check --model-url (pipeline.extraction.base_url)"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again: a connection to it is refused


def test_a_refused_connection_fails_every_model_lane_in_one_line(tmp_path: Path) -> None:
    shutil.copy(SESSION, tmp_path / "session.vtt")
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    args = ["run", "session.vtt", "--output", "out", "--model-url", url, "--model", "m"]
    run = invoke([*args, "--quiet"], cwd=tmp_path)
    assert run.status == 4
    model_lanes = "combat-turns, npc-interactions, scene-descriptions"
    # on the rules and the model: the rules' part kept
    both = "item-events, npcs, places, spells"
    assert run.stderr == (
        f"streamer: error: lanes {model_lanes} and the openai part of lanes {both} failed in "
        f"extract (chunk-000001: the model server {url} refused the connection); the bundle "
        f"was published without {model_lanes} and with {both}: other engines' records only "
        f"(hint: {HINT}; then run again: only what is missing is redone)\n"
    )
    receipt = orjson.loads(run.stdout)
    extract = next(stage for stage in receipt["stages"] if stage["stage"] == "extract")
    # asked once, in one combined request, not once per lane and attempt
    asked = [
        (lane["lane_id"], lane["requests"], lane["combined_requests"])
        for lane in extract["counts"]["lanes"]
        if lane["engine"] == "openai"
    ]
    assert asked == [(lane, 0, 1) for lane in sorted(f"{model_lanes}, {both}".split(", "))]
    assert "lanes/spells.json" in receipt["files"]
    spells = orjson.loads((tmp_path / "out" / "lanes" / "spells.json").read_bytes())["records"]
    assert [record["spell"] for record in spells] == ["Shield", "Fireball"]  # the rules'


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        ("[Errno -2] Name or service not known", "is an unknown host"),
        ("[Errno -3] Temporary failure in name resolution", "is an unknown host"),
        ("[Errno 111] Connection refused", "refused the connection"),
        ("All connection attempts failed", "cannot be reached"),
    ],
)
def test_why_a_server_cannot_be_reached_is_named(said: str, reason: str) -> None:
    failed = _unreachable("http://gpu-box:8080/v1", OSError(said))
    assert (failed.reason, failed.hint) == (
        f"the model server http://gpu-box:8080/v1 {reason}",
        HINT,
    )

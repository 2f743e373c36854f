"""A campaign grows session by session: each batch runs the new session alone, reads no
other transcript, and writes the registry (and the page) a batch from scratch writes,
byte for byte; a session removed from the manifest leaves no trace in them."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from streamer import api
from streamer.output.campaign_registry import REGISTRY_FILE, read_registry
from tests.support import REPO, invoke

CAMPAIGN = REPO / "fixtures" / "campaign"  # three short sessions (docs/campaign.md)
GLOSSARY = CAMPAIGN / "glossary.yaml"  # the party: Sel, Brannoc, Pip; Kiri in S3 only


# Every file this process opens, while a test watches (the batch's own process: a session
# that runs reads its transcript in a worker process; a skipped one is never sent to one).
OPENED: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if OPENED is not None and event == "open" and isinstance(args[0], (str, bytes, Path)):
        OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _manifest(folder: Path, sessions: Sequence[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for session in sessions:
        if not (folder / f"{session}.txt").exists():
            shutil.copy(CAMPAIGN / f"{session}.txt", folder / f"{session}.txt")
    rows = "".join(f"{session}.txt,text,{session}\n" for session in sessions)
    manifest = folder / "m.csv"
    manifest.write_text("transcript,format,document_id\n" + rows)
    return manifest


def _batch(folder: Path, sessions: Sequence[str]) -> api.BatchResult:
    manifest = _manifest(folder, sessions)
    return api.batch(None, manifest, folder / "out", workers=1, glossary=GLOSSARY)


def test_a_campaign_grown_session_by_session_is_the_one_built_at_once(tmp_path: Path) -> None:
    global OPENED
    whole = _batch(tmp_path / "whole", ["S1", "S2", "S3"])
    assert [line.status for line in whole.lines] == ["ok"] * 3
    expected = (tmp_path / "whole" / "out" / REGISTRY_FILE).read_bytes()
    grown = tmp_path / "grown"
    for count in (1, 2, 3):
        sessions = ["S1", "S2", "S3"][:count]
        OPENED = []
        try:
            result = _batch(grown, sessions)
        finally:
            opened, OPENED = OPENED, None
        assert [line.status for line in result.lines] == ["skipped"] * (count - 1) + ["ok"]
        earlier = {os.fspath(grown / f"{session}.txt") for session in sessions[:-1]}
        assert earlier & {os.path.abspath(path) for path in opened} == set()
    assert (grown / "out" / REGISTRY_FILE).read_bytes() == expected
    assert (grown / "out" / "index.html").read_text().replace("grown", "whole") == (
        tmp_path / "whole" / "out" / "index.html"
    ).read_text()
    registry = read_registry(grown / "out" / REGISTRY_FILE)
    pumat = next(entry for entry in registry.entries if entry.name == "Pumat Sol")
    assert (pumat.first_session, pumat.last_session) == ("S1", "S3")
    assert [session.session_id for session in pumat.sessions] == ["S1", "S2", "S3"]
    assert [caster.caster for caster in registry.casters] == ["Kiri", "Pip", "Sel"]
    # Kiri, a guest character of S3, is an NPC of S2's bundle, and never an NPC entry
    s2 = orjson.loads((grown / "out" / "S2" / "lanes" / "npcs.json").read_bytes())
    assert [record["name"] for record in s2["records"]] == ["Pumat Sol", "Kiri"]
    assert [entry.name for entry in registry.entries] == ["Pumat Sol", "Yussa Errenis", "Zadash"]


def test_a_session_removed_from_the_manifest_leaves_no_trace(tmp_path: Path) -> None:
    _batch(tmp_path / "c", ["S1", "S2", "S3"])
    removed = _batch(tmp_path / "c", ["S1", "S3"])
    assert [line.status for line in removed.lines] == ["skipped", "skipped"]
    data = (tmp_path / "c" / "out" / REGISTRY_FILE).read_bytes()
    assert (
        b'"S2"' not in data
        and b"S2.html" not in (tmp_path / "c" / "out" / "index.html").read_bytes()
    )
    _batch(tmp_path / "fresh", ["S1", "S3"])
    assert data == (tmp_path / "fresh" / "out" / REGISTRY_FILE).read_bytes()


def test_streamer_campaign_rewrites_the_batchs_registry_and_validate_checks_it(
    tmp_path: Path,
) -> None:
    _batch(tmp_path, ["S1", "S2"])
    out = tmp_path / "out"
    written = (out / REGISTRY_FILE).read_bytes()
    (out / REGISTRY_FILE).unlink()
    (out / "index.html").unlink()
    run = invoke(["campaign", str(out), "--glossary", str(GLOSSARY)])
    assert (run.status, run.stderr) == (0, "")
    assert orjson.loads(run.stdout) == {
        "status": "ok",
        "registry": REGISTRY_FILE,
        "sessions": 2,
        "published": 2,
        "entries": {"npcs": 1, "places": 1},
        "casters": 1,
        "campaign": "index.html",
    }
    assert (out / REGISTRY_FILE).read_bytes() == written
    valid = invoke(["validate", str(out / REGISTRY_FILE)])
    assert orjson.loads(valid.stdout) == {
        "status": "valid",
        "artifact_kind": "streamer/campaign-registry",
        "sessions": 2,
        "entries": 2,
        "casters": 1,
    }
    data = orjson.loads(written)
    data["sessions"].reverse()  # positions out of order
    data["entries"][0]["first_session"] = "S2"
    (out / REGISTRY_FILE).write_bytes(orjson.dumps(data))
    invalid = invoke(["validate", str(out / REGISTRY_FILE)])
    assert invalid.status == 3
    name = f'"{REGISTRY_FILE}"'
    assert invalid.stderr.splitlines() == [
        f"streamer: error: {name}: $.sessions[0].position is not 1",
        f"streamer: error: {name}: $.sessions[1].position is not 2",
        f"streamer: error: {name}: $.entries[0]: first_session and last_session are not its "
        "sessions'",
    ]


def test_streamer_campaign_of_a_folder_without_a_batch_says_so(tmp_path: Path) -> None:
    run = invoke(["campaign", str(tmp_path)])
    assert (run.status, run.stderr) == (
        2,
        f"streamer: error: DIR {tmp_path}: no batch.jsonl in it (hint: give the "
        "--output-dir of a streamer batch run)\n",
    )

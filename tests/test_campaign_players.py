"""``streamer campaign DIR --audience players``: the campaign as the players may see it
(issue 36): each session's players page, the registry without the glossary's secrets,
its campaign page and notes vault; the game master's files are not changed, and no
planted secret is in any byte the players get."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from streamer import api
from streamer.output.campaign_registry import REGISTRY_FILE
from tests.secrets_support import leaks
from tests.support import REPO, invoke

CAMPAIGN = REPO / "fixtures" / "campaign"
SECRET = "Yussa Errenis"  # an NPC of S3 the players must not know yet
GLOSSARY = (CAMPAIGN / "secrets-glossary.yaml").read_text()  # its secret: SECRET


def test_the_fixture_glossarys_secret_is_the_one_searched_for() -> None:
    assert GLOSSARY.endswith(f'secrets:\n  names: ["{SECRET}"]\n')


def _campaign(tmp_path: Path) -> tuple[Path, Path]:
    rows = ""
    for session in ("S1", "S2", "S3"):
        shutil.copy(CAMPAIGN / f"{session}.txt", tmp_path / f"{session}.txt")
        rows += f"{session}.txt,text,{session}\n"
    manifest = tmp_path / "m.csv"
    manifest.write_text("transcript,format,document_id\n" + rows)
    glossary = tmp_path / "glossary.yaml"
    glossary.write_text(GLOSSARY)
    api.batch(None, manifest, tmp_path / "out", workers=1, glossary=glossary)
    return tmp_path / "out", glossary


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_players_campaign_leaves_the_secret_out_of_every_byte(tmp_path: Path) -> None:
    out, glossary = _campaign(tmp_path)
    before = _files(out)
    game_master = orjson.loads((out / REGISTRY_FILE).read_bytes())
    assert "npcs/yussa-errenis" in [entry["entry_id"] for entry in game_master["entries"]]
    notes = tmp_path / "notes"
    run = invoke(
        [
            *("campaign", str(out), "--audience", "players"),
            *("--glossary", str(glossary), "--notes", str(notes)),
        ]
    )
    assert (run.status, run.stderr) == (0, "")
    receipt = orjson.loads(run.stdout)
    assert {key: receipt[key] for key in ("status", "audience", "registry", "campaign")} == {
        "status": "ok",
        "audience": "players",
        "registry": "campaign.players.registry.json",
        "campaign": "players.html",
    }
    after = _files(out)
    assert {name: after[name] for name in before} == before  # the game master's unchanged
    added = sorted(set(after) - set(before))
    assert added == [
        "S1.players.html", "S2.players.html", "S3.players.html",
        "campaign.players.registry.json", "players.html",
    ]  # fmt: skip
    players = orjson.loads(after["campaign.players.registry.json"])
    assert [entry["entry_id"] for entry in players["entries"]] == [
        entry["entry_id"] for entry in game_master["entries"] if entry["name"] != SECRET
    ]
    assert [s["report"] for s in players["sessions"]] == [
        "S1.players.html",
        "S2.players.html",
        "S3.players.html",
    ]
    assert invoke(["validate", str(out / "campaign.players.registry.json")]).status == 0
    for name in added:
        assert leaks(after[name], (SECRET,)) == [], name
    vault = _files(notes)
    assert vault and all(leaks(data, (SECRET,)) == [] for data in vault.values())
    assert leaks(after["S3.html"], (SECRET,)) == [SECRET]  # the search finds it where it is


def test_a_players_campaign_needs_the_glossary(tmp_path: Path) -> None:
    out, _ = _campaign(tmp_path)
    run = invoke(["campaign", str(out), "--audience", "players"])
    assert run.status == 2
    assert run.stderr.startswith("streamer: error: campaign ")
    assert "--audience players needs the glossary" in run.stderr

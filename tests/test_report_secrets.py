"""The player page (``streamer report --audience players``): no planted secret in any byte,
in any encoding the page uses; the game master's page unchanged; the bundle untouched."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from streamer import api
from streamer.api.reviews import review
from streamer.framework.audience import AudienceView, visible
from streamer.framework.errors.types import ConfigurationError
from streamer.normalization.glossary import parse_glossary
from streamer.report import RunNotes
from tests.report_support import embedded_data
from tests.secrets_support import EPISODE, GLOSSARY, PLANTED_ALL, episode_pages, leaks, secrets_case
from tests.support import invoke


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _pages(tmp_path: Path) -> tuple[bytes, bytes]:
    bundle, glossary, config = secrets_case(tmp_path)
    lanes = api.load_config(config).game_master_lanes()
    before = _digests(bundle)
    pages = []
    for audience in ("game-master", "players"):
        out = tmp_path / f"{audience}.html"
        api.report(
            bundle, output=out, glossary=glossary, audience=audience, game_master_lanes=lanes
        )
        pages.append(out.read_bytes())
    assert _digests(bundle) == before  # a view: the bundle never changes
    return pages[0], pages[1]


def test_the_players_page_holds_no_planted_secret(tmp_path: Path) -> None:
    game_master, players = _pages(tmp_path)
    assert leaks(game_master, PLANTED_ALL) == list(PLANTED_ALL)  # the search can find them
    assert leaks(players, PLANTED_ALL) == []


def test_the_players_page_withholds_units_and_records(tmp_path: Path) -> None:
    _, players = _pages(tmp_path)
    data = embedded_data(players)
    assert [lane["lane_id"] for lane in data["lanes"]] == ["npcs", "spells"]
    npcs = data["lanes"][0]
    assert [record["npc_id"] for record in npcs["records"]] == ["npc-1", "npc-3"]
    assert data["rejections"] is None and data["characters"] == []
    evidence = data["evidence"]
    assert evidence["lanes"] == ["npcs", "spells"]
    # a run of withheld units is one row (u02-u03, u08-u09): no count of what was withheld
    assert [row[0] for row in evidence["units"]] == [
        "u01", "u02", "u04", "u05", "u06", "u07", "u08", "u10", "u11"
    ]  # fmt: skip
    withheld = [row for row in evidence["units"] if row[2] == "[withheld]"]
    assert [row[0] for row in withheld] == ["u02", "u06", "u08", "u11"]
    assert all(row[3:] == [None, None, None] for row in withheld)
    assert evidence["contexts"] == [
        [0, 9, [["u02", "u02", ["npcs"]], ["u05", "u05", ["spells"]],
                ["u06", "u06", ["npcs"]], ["u10", "u11", ["spells"]]]]
    ]  # fmt: skip


def test_the_cli_writes_the_players_page(tmp_path: Path) -> None:
    bundle, glossary, config = secrets_case(tmp_path)
    out = tmp_path / "players.html"
    args = ["report", str(bundle), "--glossary", str(glossary), "--config", str(config)]
    result = invoke([*args, "--audience", "players", "--output", str(out)])
    assert result.status == 0, result.stderr
    assert leaks(out.read_bytes(), PLANTED_ALL) == []
    bad = invoke([*args, "--audience", "everyone", "--output", str(out)])
    assert bad.status == 2
    assert (
        bad.stderr
        == 'streamer: error: --audience "everyone" is not an audience (hint: game-master or players)\n'
    )


def test_the_game_masters_page_is_the_default_page_with_the_secrets_marked(
    tmp_path: Path,
) -> None:
    bundle, glossary, _ = secrets_case(tmp_path)
    default, game_master = tmp_path / "default.html", tmp_path / "gm.html"
    api.report(bundle, output=default)
    api.report(bundle, output=game_master, glossary=glossary, audience="game-master")
    marked, plain = embedded_data(game_master.read_bytes()), embedded_data(default.read_bytes())
    assert {lane["lane_id"]: lane.pop("secret") for lane in marked["lanes"]} == {
        "npcs": [1],
        "spells": [],
        "combat-turns": [],
    }
    assert marked["evidence"].pop("secret_units") == ["u02", "u03", "u06", "u08", "u09", "u11"]
    assert marked == plain
    # a glossary without secrets: the default page, byte for byte
    no_secrets = tmp_path / "no-secrets.yaml"
    no_secrets.write_text("names: {Brenna: [the barkeep]}\n")
    again = tmp_path / "again.html"
    api.report(bundle, output=again, glossary=no_secrets, audience="game-master")
    assert again.read_bytes() == default.read_bytes()


def test_visible_says_what_the_players_may_see() -> None:
    secrets = parse_glossary(GLOSSARY, [], "glossary").secrets
    view = AudienceView.of("players", secrets, ["combat-turns"])
    lanes = {
        "npcs": [{"name": "Brenna"}, {"name": "SYLAS  briarwood"}, {"note": "the pale lord's"}],
        "combat-turns": [{"combatant": "Grog"}],
    }
    units = [("u07", "hello", "GM"), ("u08", "hello", "GM"), ("u10", "hi", "matt (ASIDE)"),
             ("u12", "Ölgrün pacts", None), ("u13", "Olgrun Pact", None)]  # fmt: skip
    seen = visible(view, lanes, units)
    assert seen.records == {"npcs": [0], "combat-turns": []}
    assert seen.units == {"u07", "u13"}
    everything = visible(AudienceView.of("game-master", secrets, ["combat-turns"]), lanes, units)
    assert everything.records == {"npcs": [0, 1, 2], "combat-turns": [0]}
    assert len(everything.units) == 5


@pytest.mark.parametrize(
    ("secrets", "message"),
    [
        ([], "glossary: $.secrets must be a mapping"),
        ({"names": "Sylas"}, "glossary: $.secrets.names must be a list of non-empty strings"),
        ({"units": [["u1"]]}, "glossary: $.secrets.units[0] must be [first, last]: two unit IDs"),
        ({"speakers": [""]}, "glossary: $.secrets.speakers must be a list of non-empty strings"),
        ({"who": []}, "glossary: $.secrets: unknown member"),
    ],
)
def test_a_malformed_secrets_section_is_refused(secrets: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        parse_glossary({"secrets": secrets}, [], "glossary")
    assert raised.value.message == message


@pytest.mark.skipif(not EPISODE.is_file(), reason="../shared/data/crd3 is not present")
def test_a_shared_episodes_players_page_holds_no_planted_secret(tmp_path: Path) -> None:
    pages = episode_pages(tmp_path)
    assert len(pages.planted) >= 5
    game_master, players = pages.game_master.read_bytes(), pages.players.read_bytes()
    assert leaks(game_master, pages.planted) == list(pages.planted)
    assert leaks(players, pages.planted) == []
    data = embedded_data(players)
    assert "places" not in [lane["lane_id"] for lane in data["lanes"]]
    assert "places" not in data["evidence"]["lanes"]
    units = data["evidence"]["units"]
    assert "ZAC" not in {row[3] for row in units}
    in_range = [row for row in units if "t00782" <= row[0] <= "t00790"]
    assert in_range == [["t00782", "utterance", "[withheld]", None, None, None]]


def test_the_players_page_says_nothing_of_a_game_master_lane(tmp_path: Path) -> None:
    bundle, glossary, _ = secrets_case(tmp_path)
    run = RunNotes({"combat-turns": "no turn rules", "npcs": "a note"}, ("combat-turns",), "why")
    out = tmp_path / "players.html"
    api.report(
        bundle,
        output=out,
        glossary=glossary,
        audience="players",
        game_master_lanes=["combat-turns"],
        rejections={"combat-turns": {"unsupported": 2}, "npcs": {"unsupported": 1}},
        run=run,
    )
    data = embedded_data(out.read_bytes())
    assert data["run"] == {"notes": {"npcs": "a note"}, "not_run": [], "not_run_why": "why"}
    assert data["rejections"] is None
    assert b"combat-turns" not in out.read_bytes()


def test_a_record_the_review_rejects_is_not_on_the_players_page(tmp_path: Path) -> None:
    bundle, glossary, config = secrets_case(tmp_path)
    lanes = api.load_config(config).game_master_lanes()
    review(bundle, reject=["npc-3"], notes=[("npc-3", "a secret note")])
    pages = {}
    for audience in ("game-master", "players"):
        out = tmp_path / f"{audience}.html"
        api.report(
            bundle, output=out, glossary=glossary, audience=audience, game_master_lanes=lanes
        )
        pages[audience] = embedded_data(out.read_bytes())
    players = pages["players"]
    npcs = next(lane for lane in players["lanes"] if lane["lane_id"] == "npcs")
    assert [record["npc_id"] for record in npcs["records"]] == ["npc-1"]
    assert "review" not in players  # the marks and notes are the game master's
    assert pages["game-master"]["review"]["marks"] == {
        "npc-3": {"verdict": "rejected", "note": "a secret note"}
    }
    assert b"a secret note" not in (tmp_path / "players.html").read_bytes()

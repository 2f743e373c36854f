"""``--glossary`` on ``streamer run`` and ``streamer batch``, and every glossary mistake
found before the first stage: nothing imported, no work folder, one line naming the file,
the place and the cause (issue 34)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from tests.support import REPO, invoke

SESSION = REPO / "fixtures" / "quickstart" / "session.vtt"
PARTY = "party:\n- {player: JUNE, character: Juniper}\n- {player: OSKAR, character: Oskar Vell}\n"


def _folder(tmp_path: Path, glossary: str) -> Path:
    shutil.copy(SESSION, tmp_path / "session.vtt")
    (tmp_path / "glossary.yaml").write_text(glossary, encoding="utf-8")
    return tmp_path


def _casters(bundle: Path) -> list[tuple[str, str | None]]:
    records = orjson.loads((bundle / "lanes" / "spells.json").read_bytes())["records"]
    return [(record["spell"], record["caster"]) for record in records]


def test_run_takes_the_glossary_as_a_flag(tmp_path: Path) -> None:
    folder = _folder(tmp_path, PARTY)
    args = ["run", "session.vtt", "--output", "out/s", "--glossary", "glossary.yaml", "--quiet"]
    run = invoke(args, cwd=folder)
    assert (run.status, run.stderr) == (0, "")
    assert _casters(folder / "out" / "s") == [("Shield", "Juniper"), ("Fireball", "Oskar Vell")]


def test_batch_gives_the_glossary_to_every_session(tmp_path: Path) -> None:
    folder = _folder(tmp_path, PARTY)
    (folder / "sessions.csv").write_text("transcript\nsession.vtt\n", encoding="utf-8")
    args = ["batch", "sessions.csv", "--output-dir", "out", "--glossary", "glossary.yaml"]
    run = invoke([*args, "--workers", "1", "--quiet"], cwd=folder)
    assert run.status == 0, run.stderr
    assert _casters(folder / "out" / "session") == [
        ("Shield", "Juniper"),
        ("Fireball", "Oskar Vell"),
    ]


GLOSSARY_MISTAKES = [
    pytest.param(
        'party:\n- {player: "JUNE, character: Juniper}\n\n',
        "glossary glossary.yaml is not valid YAML at line 4, column 1: found unexpected end "
        "of stream (while scanning a quoted scalar that starts at line 2, column 12)",
        id="unclosed-quote",
    ),
    pytest.param(
        PARTY + "- {player: june, character: Someone Else}\n",
        "glossary glossary.yaml: $.party[2]: its player is also listed in $.party[0] "
        "(hint: a player plays one character in a session; compared by name key (a new "
        "character: give each entry its sessions: [...]))",
        id="player-twice",
    ),
    pytest.param(
        "names:\n  Juniper: [June]\n  Oskar Vell: [Oskar, june]\n",
        "glossary glossary.yaml: $.names (entry 2): its alias 2 is also listed in entry 1 (as "
        "its alias 1) (hint: names and aliases are compared by their name key (case, "
        "apostrophe forms and spacing ignored))",
        id="name-twice",
    ),
    pytest.param(
        "party:\n- JUNE\n",
        "glossary glossary.yaml: $.party[0] must be a mapping with player and character",
        id="party-entry",
    ),
]


def test_a_player_may_have_a_character_per_session(tmp_path: Path) -> None:
    glossary = (
        "party:\n- {player: JUNE, character: Juniper, sessions: [session]}\n"
        "- {player: OSKAR, character: Oskar Vell}\n"
        "- {player: june, character: Someone Else, sessions: [other]}\n"
    )
    folder = _folder(tmp_path, glossary)
    args = ["run", "session.vtt", "--output", "out/s", "--glossary", "glossary.yaml", "--quiet"]
    run = invoke(args, cwd=folder)
    assert (run.status, run.stderr) == (0, "")
    assert _casters(folder / "out" / "s") == [("Shield", "Juniper"), ("Fireball", "Oskar Vell")]


@pytest.mark.parametrize(("glossary", "message"), GLOSSARY_MISTAKES)
def test_a_glossary_mistake_stops_run_before_anything_is_read(
    tmp_path: Path, glossary: str, message: str
) -> None:
    folder = _folder(tmp_path, glossary)
    run = invoke(
        ["run", "session.vtt", "--output", "out/s", "--glossary", "glossary.yaml"], cwd=folder
    )
    assert (run.status, run.stdout, run.stderr) == (2, b"", f"streamer: error: {message}\n")
    assert sorted(os.listdir(folder)) == ["glossary.yaml", "session.vtt"]  # no out, no work


@pytest.mark.parametrize(("glossary", "message"), GLOSSARY_MISTAKES[:1])
def test_a_glossary_mistake_stops_batch_before_any_session(
    tmp_path: Path, glossary: str, message: str
) -> None:
    folder = _folder(tmp_path, glossary)
    (folder / "streamer.yaml").write_text(
        "pipeline:\n  lanes:\n    - {id: spells, artifact_kind: dnd/spell-casts, engine: rules}\n"
        "  normalization:\n    glossary: glossary.yaml\n",
        encoding="utf-8",
    )
    (folder / "sessions.csv").write_text("transcript\nsession.vtt\n", encoding="utf-8")
    args = ["batch", "sessions.csv", "--config", "streamer.yaml", "--output-dir", "out"]
    run = invoke([*args, "--quiet"], cwd=folder)
    assert (run.status, run.stdout, run.stderr) == (2, b"", f"streamer: error: {message}\n")
    assert not (folder / "out").exists()

"""On a terminal, ``streamer run`` and ``streamer batch`` end with a few lines for a person;
the JSON receipt stays what standard output carries elsewhere, or with ``--json``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson
import pytest

from streamer.cli import receipts
from tests.support import REPO, invoke

SESSION = REPO / "fixtures" / "quickstart" / "session.vtt"


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(receipts, "stdout_is_terminal", lambda: True)


def _folder(tmp_path: Path) -> Path:
    shutil.copy(SESSION, tmp_path / "session.vtt")
    return tmp_path


NO_NPC_MINED = (
    "the glossary names no non-player character (its names, less the party's) and the "
    "transcript names none the rules can tell"
)
NO_PLACE = "the transcript names no place the rules can tell from a person or a thing"


@pytest.mark.usefixtures("terminal")
def test_run_ends_with_a_summary_on_a_terminal(tmp_path: Path) -> None:
    run = invoke(["run", "session.vtt", "--output", "out/session"], cwd=_folder(tmp_path))
    assert run.status == 0, run.stderr
    text = re.sub(r"in \d+\.\d s", "in N s", run.stdout.decode())
    assert text == (
        "session: 5 units in N s\n"
        "  item-events  0 records: nothing found\n"
        f"  npcs         0 records: {NO_NPC_MINED}\n"
        f"  places       0 records: {NO_PLACE}\n"
        "  spells       2 records\n"
        "  not run: combat-turns, npc-interactions, scene-descriptions (they need a model "
        "server: add --model-url URL --model NAME)\n"
        "report: out/session.html  (bundle: out/session/)\n"
    )


@pytest.mark.usefixtures("terminal")
def test_json_gives_the_receipt_on_a_terminal_unchanged(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    on_terminal = invoke(["run", "session.vtt", "--output", "a", "--json"], cwd=folder)
    assert on_terminal.status == 0
    receipt = orjson.loads(on_terminal.stdout)
    assert (receipt["status"], receipt["report"]) == ("ok", "a.html")
    assert on_terminal.stdout.count(b"\n") == 1


def test_a_pipe_gets_the_receipt(tmp_path: Path) -> None:
    run = invoke(["run", "session.vtt", "--output", "a"], cwd=_folder(tmp_path))
    assert orjson.loads(run.stdout)["status"] == "ok"


@pytest.mark.usefixtures("terminal")
def test_batch_ends_with_a_summary_on_a_terminal(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "sessions.csv").write_text("transcript\nsession.vtt\n", encoding="utf-8")
    args = ["batch", "sessions.csv", "--output-dir", "out", "--workers", "1"]
    run = invoke(args, cwd=folder)
    assert run.status == 0, run.stderr
    assert run.stdout.decode() == (
        "1 sessions: 1 ran, 0 unchanged, 0 failed\n"
        "  item-events  0 records\n"
        "  npcs         0 records\n"
        "  places       0 records\n"
        "  spells       2 records\n"
        "pages: out/<session>.html, out/index.html; summary: out/batch.jsonl\n"
    )

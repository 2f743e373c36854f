"""The work folder of ``streamer run`` (``OUTPUT.work``): none after a failure before the
first stage completes, kept after a later failure or Ctrl-C and said so, removed by
``--clean``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from streamer.cli.main import main
from tests.run_support import StageCalls, in_folder
from tests.support import invoke


def test_a_failure_before_the_first_stage_completes_leaves_no_work_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "broken.vtt").write_bytes(b"WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nhi\n")
    run = invoke(["run", "broken.vtt", "--output", "o"], cwd=tmp_path)
    assert run.status == 3
    assert sorted(os.listdir(tmp_path)) == ["broken.vtt"]


def test_a_mistyped_glossary_is_a_usage_error_before_any_stage(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.txt")
    invoke(["init", "."], cwd=tmp_path)
    config = tmp_path / "streamer.yaml"
    config.write_text(
        config.read_text().replace("glossary: glossary.yaml", "glossary: glosary.yaml")
    )
    run = invoke(["run", "bridge.txt", "--config", "streamer.yaml", "--output", "o"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: glossary glosary.yaml does not exist or is not a file (hint: check "
        "--glossary or pipeline.normalization.glossary in streamer.yaml (relative to its "
        "folder))\n",
    )
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "glossary.yaml", "streamer.yaml"]


def test_a_later_failure_keeps_the_work_folder_says_so_and_clean_removes_it(
    tmp_path: Path,
) -> None:
    in_folder(tmp_path, "bridge.txt")
    (tmp_path / "o.html").mkdir()  # the report cannot be published: the last step fails
    (tmp_path / "o.html" / "x").write_text("")
    # a folder named as the report is refused before any stage: make it appear later
    run = invoke(["run", "bridge.txt", "--output", "o"], cwd=tmp_path)
    assert run.status == 2
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "o.html"]
    shutil.rmtree(tmp_path / "o.html")
    ok = invoke(["run", "bridge.txt", "--output", "o"], cwd=tmp_path)
    assert ok.status == 0
    assert (tmp_path / "o.work" / "source.jsonl").is_file()  # kept to skip unchanged stages
    cleaned = invoke(["run", "bridge.txt", "--output", "o", "--clean"], cwd=tmp_path)
    assert cleaned.status == 0
    assert sorted(os.listdir(tmp_path)) == ["bridge.txt", "o", "o.html"]


@pytest.mark.parametrize(
    ("stage", "kept"),
    [("import", None), ("normalize", "s.work")],
)
def test_ctrl_c_says_nothing_was_published_and_what_was_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stage: str,
    kept: str | None,
) -> None:
    in_folder(tmp_path, "bridge.vtt")
    monkeypatch.chdir(tmp_path)
    calls = StageCalls(monkeypatch)
    calls.fail_in = stage  # Ctrl-C in this stage
    with pytest.raises(SystemExit) as exited:
        main(["run", "bridge.vtt", "--output", "s", "--quiet"])
    assert exited.value.code == 130
    stderr = capsys.readouterr().err
    if kept is None:
        assert stderr == "streamer: interrupted (nothing published)\n"
        assert sorted(os.listdir(tmp_path)) == ["bridge.vtt"]
        return
    size = sum(path.stat().st_size for path in (tmp_path / kept).rglob("*") if path.is_file())
    assert stderr == (
        f"streamer: interrupted (nothing published; kept s.work ({size / 1000:.1f} KB, a copy "
        "of the transcript) to resume: run the same command again, or add --clean to remove "
        "it)\n"
    )
    calls.fail_in = None
    with pytest.raises(SystemExit) as exited:
        main(["run", "bridge.vtt", "--output", "s", "--quiet", "--clean"])
    assert exited.value.code == 0
    assert sorted(os.listdir(tmp_path)) == ["bridge.vtt", "s", "s.html"]

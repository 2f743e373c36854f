"""The manifest of ``streamer batch``: rows without a format and with import options, a row
whose option does not apply named with its row, an empty transcript failing its session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.run_support import PODCAST, in_folder
from tests.support import Run, invoke


def batch(tmp_path: Path, manifest: str, name: str = "campaign.csv") -> Run:
    (tmp_path / name).write_text(manifest)
    if not (tmp_path / "streamer.yaml").exists():
        (tmp_path / "streamer.yaml").write_bytes(invoke(["config", "--show"]).stdout)
        (tmp_path / "out").mkdir()
    return invoke(
        ["batch", "--config", "streamer.yaml", name, "--output-dir", "out", "--workers", "1"],
        cwd=tmp_path,
    )


def test_a_manifest_without_format_and_with_import_options(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge-crd3.json", "bridge.srt", "youtube-rolling.vtt")
    (tmp_path / "podcast.srt").write_text(PODCAST)
    run = batch(
        tmp_path,
        "transcript,unit,speaker_prefix,speaker_carry,dedupe_rolling\n"
        "bridge-crd3.json,line,,,\n"
        "bridge.srt,,true,,\n"
        "podcast.srt,,yes,2,\n"
        "youtube-rolling.vtt,,,,true\n",
    )
    assert (run.status, run.stderr) == (0, "")
    for name, fmt, options in [
        ("bridge-crd3.json", "crd3", ["--unit", "line"]),
        ("bridge.srt", "srt", ["--speaker-prefix"]),
        ("podcast.srt", "srt", ["--speaker-prefix", "--speaker-carry", "2"]),
        ("youtube-rolling.vtt", "webvtt", ["--dedupe-rolling"]),
    ]:
        imported = invoke(["import", fmt, name, *options], cwd=tmp_path)
        work = tmp_path / "out" / f"{Path(name).stem}.work" / "source.jsonl"
        assert work.read_bytes() == imported.stdout, name
    jsonl = batch(
        tmp_path,
        '{"transcript": "podcast.srt", "document_id": "p2", "speaker_prefix": true, '
        '"speaker_carry": 2}\n',
        "more.jsonl",
    )
    assert (jsonl.status, jsonl.stderr) == (0, "")
    units = [
        (tmp_path / "out" / f"{name}.work" / "source.jsonl").read_bytes().split(b"\n", 1)[1]
        for name in ("p2", "podcast")
    ]
    assert units[0] == units[1]  # the same units, under another document ID


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "bridge.srt,,line,",
            "manifest campaign.csv row 2: --unit does not apply to bridge.srt, read as srt "
            "(only to crd3) (hint: leave --unit out, or give --format crd3)",
        ),
        (
            "bridge.srt,text,,true",
            "manifest campaign.csv row 2: --dedupe-rolling does not apply to the text format "
            "(only to srt and webvtt)",
        ),
    ],
)
def test_a_manifest_row_whose_option_does_not_apply_names_both(
    tmp_path: Path, row: str, message: str
) -> None:
    in_folder(tmp_path, "bridge.srt")
    (tmp_path / "both.json").write_text('{"TURNS": [], "segments": []}')
    run = batch(tmp_path, "transcript,format,unit,dedupe_rolling\n" + row + "\n")
    assert run.status == 2
    assert run.stderr.startswith(f"streamer: error: {message}"), run.stderr
    assert os.listdir(tmp_path / "out") == []


def test_a_row_whose_format_cannot_be_told_fails_that_session(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.srt")
    (tmp_path / "both.json").write_text('{"TURNS": [], "segments": []}')
    run = batch(tmp_path, "transcript\nboth.json\nbridge.srt\n")
    assert run.status == 4
    assert run.stderr == (
        "streamer: error: session both (row 2) failed: cannot tell the format of both.json: "
        'it has both "TURNS" and "segments" (hint: give the row a format (the manifest\'s format '
        "column))\n"
    )


def test_an_empty_session_fails_in_a_batch(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    (tmp_path / "empty.srt").write_bytes(b"")
    (tmp_path / "campaign.csv").write_text("transcript,format\nbridge.vtt,webvtt\nempty.srt,srt\n")
    (tmp_path / "streamer.yaml").write_bytes(invoke(["config", "--show"]).stdout)
    (tmp_path / "out").mkdir()
    run = invoke(
        ["batch", "--config", "streamer.yaml", "campaign.csv", "--output-dir", "out"],
        cwd=tmp_path,
    )
    assert run.status == 4
    assert run.stderr == (
        "streamer: error: session empty (row 3) failed: transcript empty.srt is empty "
        "(0 bytes) (hint: check the file)\n"
    )
    assert sorted(os.listdir(tmp_path / "out")) == [
        "batch.jsonl",
        "bridge",
        "bridge.html",
        "bridge.work",
        "campaign.registry.json",  # the campaign registry
        "index.html",  # the campaign page
    ]

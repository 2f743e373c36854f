"""The import options (``--unit``, ``--speaker-prefix``, ``--speaker-carry``,
``--dedupe-rolling``) in ``streamer run`` as in ``streamer import``; an option that does not
apply names the option and the format; speakers carried until the next label or a long
silence."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from tests.bundle_support import receipt
from tests.run_support import PODCAST, in_folder
from tests.support import invoke

OPTIONS = [
    ("bridge-crd3.json", "crd3", ["--unit", "line"]),
    ("bridge.srt", "srt", ["--speaker-prefix"]),
    ("bridge.vtt", "webvtt", ["--speaker-prefix", "--speaker-carry", "2"]),
    ("youtube-rolling.vtt", "webvtt", ["--dedupe-rolling"]),
]


@pytest.mark.parametrize(("name", "fmt", "options"), OPTIONS)
def test_every_import_option_through_run(
    tmp_path: Path, name: str, fmt: str, options: list[str]
) -> None:
    in_folder(tmp_path, name)
    receipt(invoke(["run", name, "--output", "o", *options], cwd=tmp_path))
    imported = invoke(["import", fmt, name, *options], cwd=tmp_path)
    plain = invoke(["import", fmt, name], cwd=tmp_path)
    assert (tmp_path / "o.work" / "source.jsonl").read_bytes() == imported.stdout
    if options != ["--speaker-prefix", "--speaker-carry", "2"]:  # the fixture labels each cue
        assert imported.stdout != plain.stdout  # the option changed what was imported


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        (
            "bridge.srt",
            ["--unit", "line"],
            "--unit does not apply to bridge.srt, read as srt (only to crd3) "
            "(hint: leave --unit out, or give --format crd3)",
        ),
        (
            "bridge-crd3.json",
            ["--speaker-prefix"],
            "--speaker-prefix does not apply to bridge-crd3.json, read as crd3 (only to srt "
            "and webvtt) (hint: leave --speaker-prefix out)",
        ),
        (
            "bridge.txt",
            ["--dedupe-rolling"],
            "--dedupe-rolling does not apply to bridge.txt, read as text (only to srt and "
            "webvtt) (hint: the text format always reads 'SPEAKER: text')",
        ),
        (
            "bridge.srt",
            ["--speaker-carry", "2"],
            "--speaker-carry needs --speaker-prefix (hint: the label carried is the 'Name:' "
            "that --speaker-prefix reads)",
        ),
    ],
)
def test_an_option_that_does_not_apply_names_the_option_and_the_format(
    tmp_path: Path, name: str, options: list[str], message: str
) -> None:
    in_folder(tmp_path, name)
    run = invoke(["run", name, "--output", "o", *options], cwd=tmp_path)
    assert (run.status, run.stderr) == (2, f"streamer: error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == [name]


@pytest.mark.parametrize("fmt", ["srt", "webvtt"])
def test_speakers_are_carried_until_the_next_label_or_a_long_silence(
    tmp_path: Path, fmt: str
) -> None:
    name = f"podcast.{'srt' if fmt == 'srt' else 'vtt'}"
    text = PODCAST if fmt == "srt" else "WEBVTT\n\n" + PODCAST.replace(",", ".")
    (tmp_path / name).write_text(text)

    def speakers(*options: str) -> list[str | None]:
        run = invoke(["import", fmt, name, "--speaker-prefix", *options], cwd=tmp_path)
        assert run.status == 0, run.stderr
        lines = run.stdout.splitlines()[1:]
        return [orjson.loads(line).get("metadata", {}).get("speaker") for line in lines]

    assert speakers() == ["HOST", None, "GUEST", None, None, None]  # off by default
    # a gap of 9 s before the last cue: more than 2 s of silence ends the turn
    assert speakers("--speaker-carry", "2") == ["HOST", "HOST", "GUEST", "GUEST", "GUEST", None]
    assert speakers("--speaker-carry", "10") == [
        "HOST",
        "HOST",
        "GUEST",
        "GUEST",
        "GUEST",
        "GUEST",
    ]
    # 0.4 s of silence before cue 5 is more than 0.3 s: carrying stops there
    assert speakers("--speaker-carry", "0.3") == ["HOST", "HOST", "GUEST", "GUEST", None, None]

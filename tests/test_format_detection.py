"""The format of a transcript, found by ``streamer run`` from its content when the name
does not say, forced by ``--format``; a file that is not one format is named with its
candidates."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.bundle_support import receipt
from tests.run_support import IMPORT, stage_counts
from tests.support import invoke


def test_a_format_is_found_by_content_when_the_name_does_not_say(tmp_path: Path) -> None:
    shutil.copy(IMPORT / "bridge.srt", tmp_path / "captions.subtitles")
    shutil.copy(IMPORT / "bridge.vtt", tmp_path / "captions")
    for name, found in (("captions.subtitles", "srt"), ("captions", "webvtt")):
        result = receipt(invoke(["run", name, "--output", name + "-out"], cwd=tmp_path))
        imported = invoke(["import", found, name, "--document-id", Path(name).stem], cwd=tmp_path)
        assert (tmp_path / f"{name}-out.work" / "source.jsonl").read_bytes() == imported.stdout
        assert stage_counts(result, "import")["units"] == {"srt": 6, "webvtt": 7}[found]


def test_format_forces_the_format(tmp_path: Path) -> None:
    shutil.copy(IMPORT / "bridge.srt", tmp_path / "bridge.txt")  # SubRip under a .txt name
    forced = receipt(
        invoke(["run", "bridge.txt", "--format", "srt", "--output", "o"], cwd=tmp_path)
    )
    assert stage_counts(forced, "import")["units"] == 6  # its cues
    by_name = receipt(invoke(["run", "bridge.txt", "--output", "p"], cwd=tmp_path))
    assert stage_counts(by_name, "import")["units"] == 22  # read as text: its lines


JSON_CASES = [
    (
        "both.json",
        b'{"TURNS": [], "segments": []}',
        2,
        'cannot tell the format of both.json: it has both "TURNS" and "segments" '
        "(hint: give --format, one of: crd3, whisperx)",
    ),
    (
        "diarize.json",
        b'[{"speaker": "SPEAKER_00", "start": 0.5, "end": 2.1}]',
        3,
        "diarize.json is a diarization result (speaker turns without text), not a "
        'transcript (hint: give the WhisperX transcript it belongs to (the JSON with "segments"), '
        "with --format whisperx)",
    ),
    (
        "other.json",
        b'{"results": []}',
        3,
        'other.json is a JSON object with neither "TURNS" (CRD3) nor "segments" (WhisperX) '
        "(hint: give a CRD3 or WhisperX transcript, or --format to read it as one)",
    ),
    (
        "notes.log",
        b"MATT: hello\n",
        2,
        "cannot tell the format of notes.log: its name does not end in .json, .srt, .txt or "
        ".vtt, and it does not start as WebVTT, SubRip or JSON (hint: give --format, one "
        "of: crd3, srt, text, webvtt, whisperx)",
    ),
]


@pytest.mark.parametrize(("name", "content", "status", "message"), JSON_CASES)
def test_a_file_that_is_not_one_format_is_named_with_its_candidates(
    tmp_path: Path, name: str, content: bytes, status: int, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    run = invoke(["run", name, "--output", "o"], cwd=tmp_path)
    assert (run.status, run.stdout, run.stderr) == (status, b"", f"streamer: error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == [name]

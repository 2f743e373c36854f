"""Malformed transcripts: exit status 3, one content-safe line naming the line, cue or JSON
path, and nothing written. Usage mistakes: exit status 2 before anything is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import invoke

MARKER = "MARKER-q7Zx"
M = MARKER.encode()
VTT_HINT = (
    " (hint: a cue is an optional identifier line, then '[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt', "
    "then its text)"
)

# (format, file name, content, options, the exact error after "streamer: error: ")
MALFORMED = [
    (
        "text",
        "bad.txt",
        b"A: fine\nB: " + M + b" \xff\xfe\n",
        (),
        "text bad.txt: line 2: not valid UTF-8 (hint: convert it to UTF-8 first, e.g. iconv -f WINDOWS-1252 -t UTF-8)",
    ),
    (
        "webvtt",
        "bad.vtt",
        b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + M + b"\n\n"
        b"00:00:05.000 --> 00:00:03.000\n" + M + b"\n",
        (),
        "webvtt bad.vtt: line 6 (cue 2): the cue ends before it starts",
    ),
    (
        "webvtt",
        "bad.vtt",
        b"WEBVTT\n\n" + M + b"\n" + M + b" without timings\n",
        (),
        "webvtt bad.vtt: line 3: a block without cue timings" + VTT_HINT,
    ),
    (
        "webvtt",
        "bad.vtt",
        b"WEBVTT\n\nNOTE fine\n\n00:00:01.000 --> 00:00:61.000\n" + M + b"\n",
        (),
        "webvtt bad.vtt: line 5 (cue 1): invalid cue timings "
        "(hint: cue timings are '[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt')",
    ),
    (
        "webvtt",
        "bad.vtt",
        M + b"\n\n00:00:01.000 --> 00:00:02.000\ntext\n",
        (),
        "webvtt bad.vtt: line 1: a WebVTT file must start with WEBVTT",
    ),
    (
        "srt",
        "bad.srt",
        b"1\r\n00:00:01,000 --> 00:00:02,000\r\n" + M + b"\r\n\r\n2\r\n" + M + b"\r\n",
        ("--speaker-prefix",),
        "srt bad.srt: line 6 (cue 2): expected cue timings 'HH:MM:SS,mmm --> HH:MM:SS,mmm' "
        "after the cue number",
    ),
    (
        "srt",
        "bad.srt",
        b"1\n00:00:01,000 --> 00:00:02,000\n" + M + b"\n2\n00:00:03,000 --> 00:00:04,000\n",
        (),
        "srt bad.srt: line 5 (cue 1): cue timings inside the cue text "
        "(hint: an empty line must separate cues)",
    ),
    (
        "srt",
        "bad.srt",
        b"1\n00:00:01,000 --> 00:00:02,000\nfine\n\n" + M + b" second paragraph\n",
        (),
        "srt bad.srt: line 5 (cue 2): expected a cue number or cue timings (hint: a SubRip cue "
        "is a number, a line 'HH:MM:SS,mmm --> HH:MM:SS,mmm' and its text, cues separated by "
        "empty lines)",
    ),
    (
        "srt",
        "bad.srt",
        b"1\n00:00:03,000 --> 00:00:02,000\n" + M + b"\n",
        (),
        "srt bad.srt: line 2 (cue 1): the cue ends before it starts",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"segments": [{"text": "' + M + b'", "start": 1, "end": 2},\n'
        b'{"text": "' + M + b'" oops}]}',
        (),
        "whisperx bad.json: not valid JSON at $.segments[1]",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"segments": [{"text": "' + M + b' \xff", "start": 1, "end": 2}]}',
        (),
        "whisperx bad.json: not valid UTF-8 at $.segments[0]",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"segments": [{"text": "ok", "start": 1, "end": 2}, {"text": "'
        + M
        + b'", "start": 4.5, "end": 4.25}]}',
        (),
        "whisperx bad.json: $.segments[1]: end is before start",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"segments": [{"text": "' + M + b'", "start": -1, "end": 2}]}',
        (),
        "whisperx bad.json: $.segments[0].start must be a number of seconds from 0 to "
        "(2**53-1)/1000",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"segments": [{"text": ["' + M + b'"]}]}',
        (),
        "whisperx bad.json: $.segments[0].text must be a string",
    ),
    (
        "whisperx",
        "bad.json",
        b'{"text": "' + M + b'", "language": "en"}',
        (),
        "whisperx bad.json: $.segments is required",
    ),
    (
        "crd3",
        "bad.json",
        b'{"METADATA": {}, "TURNS": [{"NAMES": ["A"], "UTTERANCES": ["' + M + b'"], "NUMBER": 0},'
        b' {"NAMES": ["B"], "UTTERANCES": ["' + M,
        (),
        "crd3 bad.json: not valid JSON at $.TURNS[1]",
    ),
    (
        "crd3",
        "bad.json",
        b'{"TURNS": [{"NAMES": ["A"], "UTTERANCES": ["' + M + b'"], "NUMBER": 3},'
        b' {"NAMES": ["B"], "UTTERANCES": ["' + M + b'"], "NUMBER": 2}]}',
        ("--unit", "line"),
        "crd3 bad.json: $.TURNS[1].NUMBER must be greater than the previous turn's "
        "(hint: CRD3 numbers its turns in transcript order)",
    ),
    (
        "crd3",
        "bad.json",
        b'{"TURNS": [{"NAMES": ["' + M + b'"], "UTTERANCES": "' + M + b'", "NUMBER": 0}]}',
        (),
        "crd3 bad.json: $.TURNS[0].UTTERANCES must be a list of strings",
    ),
    (
        "crd3",
        "bad.json",
        b'["' + M + b'"]',
        (),
        "crd3 bad.json: $ must be a JSON object",
    ),
]
IDS = [f"{case[0]}-{index}" for index, case in enumerate(MALFORMED)]


@pytest.mark.parametrize(("fmt", "name", "content", "options", "message"), MALFORMED, ids=IDS)
def test_malformed_input_fails_with_one_safe_line_and_writes_nothing(
    fmt: str, name: str, content: bytes, options: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    run = invoke(["import", fmt, name, *options, "--output", "out.jsonl"], cwd=tmp_path)
    assert run.status == 3
    assert run.stdout == b""
    assert run.stderr == f"streamer: error: {message}\n"
    assert MARKER not in run.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == [name]  # no output, no partial


FIRST_OF_EACH_FORMAT = list({case[0]: case for case in reversed(MALFORMED)}.values())[::-1]


@pytest.mark.parametrize(
    ("fmt", "name", "content", "options", "message"),
    FIRST_OF_EACH_FORMAT,
    ids=[case[0] for case in FIRST_OF_EACH_FORMAT],
)
def test_malformed_stdin_writes_nothing_to_stdout(
    fmt: str, name: str, content: bytes, options: tuple[str, ...], message: str
) -> None:
    run = invoke(["import", fmt, "-", *options, "--document-id", "d"], input=content)
    assert run.status == 3
    assert run.stdout == b""
    label = f"{fmt} stdin: "
    assert run.stderr == f"streamer: error: {message.replace(f'{fmt} {name}: ', label)}\n"


def test_an_error_after_many_good_units_still_writes_nothing(tmp_path: Path) -> None:
    lines = b"".join(b"SPEAKER: line %d\n" % number for number in range(50_000))
    source = tmp_path / "long.txt"
    source.write_bytes(lines + b"MATT: " + M + b" \xc3\n")
    run = invoke(["import", "text", "long.txt", "--output", "out.jsonl"], cwd=tmp_path)
    assert (run.status, run.stdout) == (3, b"")
    assert run.stderr == (
        "streamer: error: text long.txt: line 50001: not valid UTF-8 (hint: convert it to UTF-8 first, e.g. iconv -f WINDOWS-1252 -t UTF-8)\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["long.txt"]


USAGE = [
    (["import", "text", "-"], "--document-id is required when the transcript is read from stdin "
     "(hint: name the document with --document-id ID)"),
    (["import", "text", "{fixture}", "--document-id", " "], "--document-id must not be empty"),
    (["import", "srt", "{fixture}", "--unit", "line"],
     "--unit does not apply to the srt format (only to crd3) "
     "(hint: leave --unit out, or give --format crd3)"),
    (["import", "text", "{fixture}", "--speaker-prefix"],
     "--speaker-prefix does not apply to the text format (only to srt and webvtt) "
     "(hint: the text format always reads 'SPEAKER: text')"),
    (["import", "text", "{missing}"],
     "input file missing.txt does not exist or is not a file "
     "(hint: check INPUT, or use - for stdin)"),
    (["import", "text", "{fixture}", "--output", "{missing}/out.jsonl"],
     "the folder missing.txt of --output missing.txt/out.jsonl does not exist "
     "(hint: create it first: mkdir -p missing.txt)"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), USAGE)
def test_usage_errors_exit_2_before_reading(args: list[str], message: str, tmp_path: Path) -> None:
    fixture = tmp_path / "session.txt"
    fixture.write_bytes(b"MATT: hello\n")
    argv = [arg.format(fixture="session.txt", missing="missing.txt") for arg in args]
    run = invoke(argv, input=b"MATT: hello\n", cwd=tmp_path)
    assert (run.status, run.stdout) == (2, b"")
    assert run.stderr == f"streamer: error: {message}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["session.txt"]


EMPTY = [
    ("empty.srt", b"\n", "no units: empty.srt is empty or has no cues"),
    ("blank.txt", b"\n  \n", "no units: blank.txt is empty or has no lines of text"),
    ("empty.vtt", b"WEBVTT\n\n", "no units: empty.vtt is empty or has no cues"),
    ("none.json", b'{"segments": []}', "no units: none.json is empty or has no segments"),
]


@pytest.mark.parametrize(("name", "content", "message"), EMPTY)
def test_a_transcript_without_units_is_an_error_in_import_and_run(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    fmt = {"srt": "srt", "txt": "text", "vtt": "webvtt", "json": "whisperx"}[name.split(".")[1]]
    hint = f" (hint: check the file, read as {fmt} (--format))"
    imported = invoke(["import", fmt, name, "--output", "s.jsonl"], cwd=tmp_path)
    assert (imported.status, imported.stdout) == (3, b"")
    assert imported.stderr == f"streamer: error: {message}{hint}\n"
    ran = invoke(["run", name, "--output", "o"], cwd=tmp_path)
    assert (ran.status, ran.stdout, ran.stderr) == (3, b"", imported.stderr)
    assert sorted(os.listdir(tmp_path)) == [name]  # no work folder, no bundle, no report

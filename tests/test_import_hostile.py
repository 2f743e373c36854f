"""Hostile and real-world importer input: deep nesting and repeated members in the JSON
formats, text encodings, CR-only text in bounded memory. Resource use is asserted by
limits on a subprocess, never by timing."""

from __future__ import annotations

import io
import os
import re
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streamer.framework.errors.types import SourceError
from streamer.importers.formats import read_utterances
from tests.import_cases import plain
from tests.support import REPO

MEMORY_LIMIT = 256 << 20


def import_run(
    tmp_path: Path,
    fmt: str,
    data: bytes,
    *args: str,
    memory: int = MEMORY_LIMIT,
    keep_output: bool = True,
) -> tuple[int, bytes, str]:
    """``streamer import`` of ``data`` in a subprocess limited in memory and CPU time."""
    source = tmp_path / f"input.{fmt}"
    source.write_bytes(data)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))

    completed = subprocess.run(
        [sys.executable, "-m", "streamer", "import", fmt, str(source), *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=limits,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if keep_output else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    return completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace")


def units(fmt: str, data: bytes, **options: Any) -> list[tuple[Any, ...]]:
    return [plain(unit) for unit in read_utterances(fmt, io.BytesIO(data), **options)]


def error_of(fmt: str, data: bytes, **options: Any) -> str:
    with pytest.raises(SourceError) as caught:
        units(fmt, data, **options)
    return caught.value.one_line()


# -- WhisperX and CRD3: nesting (issue 9, item 3) and repeated members (item 10) --------


@pytest.mark.parametrize("levels", [20_000, 100_000])
@pytest.mark.parametrize(
    ("fmt", "before", "after"),
    [
        ("crd3", b'{"METADATA": {"wiki": ', b'}, "TURNS": []}'),  # a skipped member
        ("crd3", b'{"TURNS": [{"NAMES": [], "UTTERANCES": ', b', "NUMBER": 0}]}'),
        ("whisperx", b'{"segments": [{"text": "a", "words": ', b"}]}"),
        ("whisperx", b'{"segments": [], "word_segments": ', b"}"),
    ],
)
def test_deep_json_imports_fail_with_exit_3_in_bounded_memory(
    tmp_path: Path, levels: int, fmt: str, before: bytes, after: bytes
) -> None:
    data = before + b"[" * levels + b"]" * levels + after
    status, stdout, stderr = import_run(tmp_path, fmt, data)
    assert status == 3, stderr
    assert stdout == b""
    assert "is nested more than 32 levels deep" in stderr


@pytest.mark.parametrize(
    ("fmt", "data", "expected"),
    [
        (
            "whisperx",
            b'{"segments": [{"text": "a", "text": "b"}]}',
            '$.segments[*]: member "text"',
        ),
        (
            "whisperx",
            b'{"segments": [{"text": "a", "speaker": "A", "speaker": "B"}]}',
            '$.segments[*]: member "speaker"',
        ),
        (
            "whisperx",
            b'{"segments": [{"text": "a", "words": [{"w": 1, "w": 2}]}]}',
            '$.segments[*].words[*]: member "w"',
        ),
        (
            "whisperx",
            b'{"language": "en", "language": "fr", "segments": []}',
            '$: member "language"',
        ),
        (
            "crd3",
            b'{"TURNS": [{"NAMES": ["A"], "UTTERANCES": ["x"], "NUMBER": 0, "NUMBER": 1}]}',
            '$.TURNS[*]: member "NUMBER"',
        ),
        (
            "crd3",
            b'{"METADATA": {"a b": 1, "a b": 2}, "TURNS": []}',
            '$.METADATA: member "a b"',
        ),
        ("crd3", b'{"TURNS": [], "TURNS": []}', '$: member "TURNS"'),
    ],
)
def test_repeated_members_in_json_imports_are_refused(fmt: str, data: bytes, expected: str) -> None:
    assert error_of(fmt, data) == f"{expected} appears twice (member names must be unique)"


@pytest.mark.parametrize("number", ["0.4e0066999999", "-0.4e0066999999", "1e-999999999"])
def test_huge_exponents_in_json_imports(number: str) -> None:
    data = b'{"segments": [{"start": %s, "end": 1, "text": "x"}]}' % number.encode()
    if number.startswith("1e-"):
        assert units("whisperx", data) == [("u000001", "x", None, 0, 1000)]
    else:
        assert error_of("whisperx", data) == (
            "$.segments[0].start must be a number of seconds from 0 to (2**53-1)/1000"
        )
    turn = b'{"TURNS": [{"NAMES": ["A"], "UTTERANCES": ["x"], "NUMBER": %s}]}' % number.encode()
    assert error_of("crd3", turn) == "$.TURNS[0].NUMBER must be an integer >= 0"


# -- WebVTT and SubRip (issue 9, items 13, 15, 16, 17) ----------------------------------

YOUTUBE = REPO / "fixtures" / "import" / "youtube-rolling.vtt"
ROLLED = [
    ("u000001", "welcome back to the table everyone", None, 160, 2470),
    ("u000002", "last time the party reached the bridge", None, 2480, 5150),
    ("u000003", "& the goblin cut the ropes", None, 5160, 8030),
    ("u000004", "[Music]", None, 8040, 10510),
    ("u000005", "roll for initiative", None, 10520, 12990),
]


def test_youtube_captions_import_with_a_line_of_white_space_in_every_cue() -> None:
    """Item 13: yt-dlp writes a line of white space in every cue; it does not end it."""
    rolled = units("webvtt", YOUTUBE.read_bytes())
    assert len(rolled) == 9
    assert rolled[0] == ROLLED[0]
    assert rolled[1] == ("u000002", "welcome back to the table everyone", None, 2470, 2480)


@pytest.mark.parametrize("fmt", ["webvtt", "srt"])
def test_dedupe_rolling_gives_each_phrase_once_with_its_times(fmt: str) -> None:
    data = YOUTUBE.read_bytes()
    if fmt == "srt":  # the same captions as yt-dlp --convert-subs srt writes them
        data = _as_srt(data)
    assert units(fmt, data, dedupe_rolling=True) == ROLLED
    words = sum(len(text.split()) for _, text, *_ in units(fmt, data, dedupe_rolling=True))
    assert words == 23  # what was said, once


def _as_srt(vtt: bytes) -> bytes:
    out, number = [], 0
    for block in vtt.decode().split("\n\n")[1:]:
        lines = block.split("\n")
        if not lines[0]:
            continue
        number += 1
        timings = lines[0].split(" align")[0].replace(".", ",")
        text = [re.sub(r"<[^>]*>", "", line) for line in lines[1:]]
        out.append("\n".join([str(number), timings, *text]))
    return ("\n\n".join(out) + "\n").encode()


def test_dedupe_rolling_is_a_usage_error_for_other_formats() -> None:
    from streamer.framework.errors.types import ConfigurationError

    with pytest.raises(
        ConfigurationError, match="--dedupe-rolling does not apply to the text format"
    ):
        read_utterances("text", io.BytesIO(b"x\n"), dedupe_rolling=True)


def test_dedupe_rolling_on_the_command_line(tmp_path: Path) -> None:
    status, stdout, stderr = import_run(
        tmp_path, "webvtt", YOUTUBE.read_bytes(), "--dedupe-rolling", "--document-id", "yt"
    )
    assert status == 0, stderr
    assert stdout.count(b"\n") == 1 + len(ROLLED)


def test_webvtt_blocks_are_separated_by_empty_lines_only() -> None:
    data = b"WEBVTT\n\n00:01.000 --> 00:02.000\none\n \t\ntwo\n\n \n00:03.000 --> 00:04.000\nx\n"
    assert units("webvtt", data) == [
        ("u000001", "one two", None, 1000, 2000),
        ("u000002", "x", None, 3000, 4000),
    ]
    # an identifier followed by a line of white space is a block without timings
    assert error_of("webvtt", b"WEBVTT\n\nid\n \n00:01.000 --> 00:02.000\nx\n") == (
        "line 3: a block without cue timings (hint: a cue is an optional identifier line, "
        "then '[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt', then its text)"
    )


def test_the_webvtt_header_ends_at_the_first_empty_line() -> None:
    """Item 17."""
    assert error_of("webvtt", b"WEBVTT\nKind: captions\n00:01.000 --> 00:02.000\nx\n") == (
        "line 3: cue timings in the WebVTT header (hint: the header ends at the first empty "
        "line: put one between the WEBVTT line and the first cue)"
    )
    assert units("webvtt", b"WEBVTT\n \n\n00:01.000 --> 00:02.000\nx\n") == [
        ("u000001", "x", None, 1000, 2000)
    ]


@pytest.mark.parametrize(
    ("timings", "start", "end"),
    [
        ("00:00,000 --> 00:02,500", 0, 2500),
        ("00:00:02 --> 00:00:03", 2000, 3000),
        ("00:01:41,04 --> 00:01:42,5", 101_040, 102_500),
        ("1:02:03.004 --> 1:02:04,000", 3_723_004, 3_724_000),
        ("00:00:01,000 --> 00:00:02,000 X1:10 X2:20 Y1:1 Y2:2", 1000, 2000),
    ],
)
def test_srt_timing_variants(timings: str, start: int, end: int) -> None:
    """Item 15."""
    data = f"1\n{timings}\nhello\n".encode()
    assert units("srt", data) == [("u000001", "hello", None, start, end)]


def test_srt_white_space_lines_entities_and_ssa_breaks() -> None:
    data = (
        b"1\n00:00:01,000 --> 00:00:02,000\nfirst\n  \nsecond\n\n"
        b"2\n00:00:03,000 --> 00:00:04,000\nFish &amp; chips &lt;i&gt;&nbsp;now\\Nnext line\n"
        b" \n3\n00:00:05,000 --> 00:00:06,000\n{\\an8}<i>third</i>\n"
    )
    assert units("srt", data) == [
        ("u000001", "first second", None, 1000, 2000),
        ("u000002", "Fish & chips <i>\u00a0now next line", None, 3000, 4000),
        ("u000003", "third", None, 5000, 6000),
    ]


@pytest.mark.parametrize(
    ("fmt", "data"),
    [
        ("srt", b"1\n00:00:01,000 --> 00:00:02,000\n[SPEAKER_02]: Roll initiative.\n"),
        ("webvtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\n[SPEAKER_02]: Roll initiative.\n"),
        ("text", b"[SPEAKER_02]: Roll initiative.\n"),
        ("whisperx", b'{"segments": [{"text": " Roll initiative.", "speaker": "SPEAKER_02"}]}'),
    ],
)
def test_whisperx_speakers_are_the_same_in_all_its_formats(fmt: str, data: bytes) -> None:
    """Item 16."""
    [(unit_id, text, speaker, *_)] = units(fmt, data)
    assert (unit_id, text, speaker) == ("u000001", "Roll initiative.", "SPEAKER_02")


def test_bracketed_names_with_speaker_prefix() -> None:
    data = b"1\n00:00:01,000 --> 00:00:02,000\n[ Matt ]: Roll.\n"
    assert units("srt", data, speaker_prefix=True)[0][1:3] == ("Roll.", "Matt")
    assert units("srt", data)[0][1:3] == ("[ Matt ]: Roll.", None)


# -- encodings (issue 9, item 14) --------------------------------------------------------


@pytest.mark.parametrize(
    "encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8-sig"]
)
@pytest.mark.parametrize("fmt", ["srt", "webvtt", "text"])
def test_a_byte_order_mark_gives_the_encoding(encoding: str, fmt: str) -> None:
    text = {
        "srt": "1\r\n00:00:01,000 --> 00:00:02,000\r\nMira: Ünïcödé 🎲\r\n",
        "webvtt": "WEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\nMira: Ünïcödé 🎲\r\n",
        "text": "Mira: Ünïcödé 🎲\r\n",
    }[fmt]
    bom = {
        "utf-16-le": "\ufeff",
        "utf-16-be": "\ufeff",
        "utf-32-le": "\ufeff",
        "utf-32-be": "\ufeff",
    }
    data = (bom.get(encoding, "") + text).encode(encoding)
    options = {"speaker_prefix": True} if fmt != "text" else {}
    [(_, body, speaker, *_)] = units(fmt, data, **options)
    assert (body, speaker) == ("Ünïcödé 🎲", "Mira")


def test_other_encodings_are_refused_with_an_iconv_hint() -> None:
    data = "Mira: caf\u00e9\n".encode("cp1252")
    assert error_of("text", data) == (
        "line 1: not valid UTF-8 (hint: convert it to UTF-8 first, e.g. iconv -f WINDOWS-1252 "
        "-t UTF-8)"
    )
    assert error_of("text", "\ufeffa\n\ud800\n".encode("utf-16-le", "surrogatepass")) == (
        "line 2: not valid UTF-16 (hint: convert it to UTF-8 first, e.g. iconv -f "
        "WINDOWS-1252 -t UTF-8)"
    )
    assert error_of("text", "\ufeffab".encode("utf-16-le")[:-1]) == (
        "the input is not valid UTF-16: it ends inside a character"
    )


# -- CR-only text streams (issue 8, item 5) ----------------------------------------------


@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"])
def test_any_line_end_streams_in_bounded_memory(tmp_path: Path, ending: bytes) -> None:
    """100 MB of text, every line ending ``ending``, under a 170 MiB address-space limit
    (an import needs about 140): before the fix a CR-only file was one line, held whole,
    and the import failed with MemoryError."""
    line = b"MATT: " + b"r" * 94
    data = (line + ending) * 1_000_000
    status, _, stderr = import_run(tmp_path, "text", data, memory=170 << 20, keep_output=False)
    assert status == 0, stderr
    assert stderr == ""


@pytest.mark.parametrize("block", [1, 2, 3, 5])
def test_line_ends_split_across_blocks(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    from streamer.importers import lines

    monkeypatch.setattr(lines, "BLOCK_SIZE", block)
    data = "a\r\nb\rc\n\nd\r\r\né\r".encode()
    got = list(lines.text_lines(io.BytesIO(data)))
    assert got == [(1, "a"), (2, "b"), (3, "c"), (4, ""), (5, "d"), (6, ""), (7, "é")]
    assert got == list(enumerate(data.decode().splitlines(), 1))

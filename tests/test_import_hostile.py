"""Hostile and real-world importer input: deep nesting and repeated members in the JSON
formats, text encodings, CR-only text in bounded memory. Resource use is asserted by
limits on a subprocess, never by timing."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streamer.framework.errors import SourceError
from streamer.importers.formats import read_utterances
from tests.support import REPO

MEMORY_LIMIT = 256 << 20


def import_run(
    tmp_path: Path, fmt: str, data: bytes, *args: str, memory: int = MEMORY_LIMIT
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
        capture_output=True,
        check=False,
    )
    return completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace")


def units(fmt: str, data: bytes, **options: Any) -> list[tuple[Any, ...]]:
    return [
        (u.unit_id, u.text, u.speaker, u.start_ms, u.end_ms)
        for u in read_utterances(fmt, io.BytesIO(data), **options)
    ]


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

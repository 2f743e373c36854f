"""The evidence spool in TMPDIR: when it cannot grow, the run fails with a clear error that
names the reference keeping it growing (a reference whose end unit is missing spools every
unit after its start until the source ends: only then is the end known to be missing)."""

from __future__ import annotations

import errno
import io
from pathlib import Path
from typing import Any

import pytest

from streamer.cli.main import main
from streamer.framework.evidence import projector
from tests.support import ref, spell, units, write_case

IDS = [f"u{i}" for i in range(400)]
HINT = (
    " (hint: the spool holds every published unit until the source has been read; free space "
    "in TMPDIR or point TMPDIR at a larger disk (see docs/operations.md))"
)


class FullDisk(io.BytesIO):
    """A spool on a disk with room for ``room`` bytes (less than a batch of units)."""

    room = 4000

    def write(self, data: Any) -> int:
        if self.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)


def run_evidence(case: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    args = ["evidence", "--config", str(case.config), "--source", str(case.source)]
    with pytest.raises(SystemExit) as exited:
        main([*args, "--lanes-dir", str(case.lanes_dir), "--output", "-"])
    captured = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 1), captured.err.splitlines(), captured.out


def test_a_reference_whose_end_unit_is_missing_fails_clearly_when_the_spool_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(projector, "open_spool", FullDisk)
    lanes = {"spells": [spell("s1", ref("u3")), spell("s2", ref("u5", "u-missing"))]}
    case = write_case(tmp_path, units(IDS), lanes, window=1)
    status, errors, out = run_evidence(case, capsys)
    assert (status, out) == (1, "")
    assert errors == [
        "streamer: error: the evidence spool in TMPDIR cannot grow past 0 bytes (No space "
        "left on device); 1 reference(s) still open since source position 5, the first lane "
        "spells: $.records[1] reference 0: its end unit has not appeared, and every unit after "
        "its start is kept" + HINT
    ]


def test_a_full_spool_without_an_open_reference_says_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(projector, "open_spool", FullDisk)
    lanes = {"spells": [spell("s1", ref("u3", "u390"))]}  # resolved in the batch that spools
    case = write_case(tmp_path, units(IDS), lanes, window=1)
    status, errors, out = run_evidence(case, capsys)
    assert (status, out) == (1, "")
    assert errors == [
        "streamer: error: the evidence spool in TMPDIR cannot grow past 0 bytes (No space "
        "left on device)" + HINT
    ]


def test_the_missing_end_unit_is_reported_when_the_spool_has_room(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lanes = {"spells": [spell("s1", ref("u5", "u-missing"))]}
    case = write_case(tmp_path, units(IDS), lanes, window=1)
    status, errors, out = run_evidence(case, capsys)
    assert (status, errors, out) == (
        3,
        [
            'streamer: error: lane spells: $.records[0] reference 0: unit ID "u-missing" is '
            "not in the source document"
        ],
        "",
    )

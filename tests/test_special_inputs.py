"""Special files as inputs (docs/operations.md, "Input files"): lane outputs and
configurations must be regular files, read up to a documented bound; a FIFO in the
lanes folder fails at once (it used to hang), ``/dev/zero`` is never read without end,
and a transcript can come from a FIFO such as ``<(zcat t.srt.gz)``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamer.configuration.resolve import CONFIG_MAX_BYTES
from streamer.framework.errors.types import ConfigurationError, LaneOutputError
from streamer.framework.regular_files import read_regular_file
from tests.support import REPO, Case, invoke, ref, spell, units, write_case

IMPORT = REPO / "fixtures" / "import"


def case(root: Path) -> Case:
    return write_case(root, units(["u1", "u2", "u3"]), {"spells": [spell("s1", ref("u2"))]})


def run_with_timeout(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    # A hang is the failure: the timeout turns it into an error, not a wait forever.
    return subprocess.run(
        [sys.executable, "-m", "streamer", *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("command", ["evidence", "bundle"])
@pytest.mark.parametrize("how", ["fifo", "link to a fifo", "link to /dev/zero"])
def test_a_lane_output_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, command: str, how: str
) -> None:
    c = case(tmp_path / "case")
    lane = c.lanes_dir / "spells.json"
    lane.unlink()
    if how == "fifo":
        os.mkfifo(lane)
    elif how == "link to a fifo":
        os.mkfifo(tmp_path / "pipe")
        lane.symlink_to(tmp_path / "pipe")
    else:
        lane.symlink_to("/dev/zero")
    args = c.args()
    if command == "bundle":
        args = [*c.args("--output", str(tmp_path / "b"))]
        args[0] = "bundle"
    completed = run_with_timeout(args)
    assert completed.returncode == 3
    assert completed.stderr == (
        b"streamer: error: lane spells (spells.json) is not a regular file "
        b"(hint: name a regular file)\n"
    )
    assert completed.stdout == b""
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("how", ["fifo", "/dev/zero", "too large"])
def test_a_configuration_that_is_not_a_small_regular_file_is_refused(
    tmp_path: Path, how: str
) -> None:
    c = case(tmp_path / "case")
    c.config.unlink()
    if how == "fifo":
        os.mkfifo(c.config)
        expected = "is not a regular file (hint: name a regular file)"
    elif how == "/dev/zero":
        c.config.symlink_to("/dev/zero")
        expected = "is not a regular file (hint: name a regular file)"
    else:
        c.config.write_bytes(b"#" * (CONFIG_MAX_BYTES + 1))
        expected = "is larger than its bound of 1 MiB"
    completed = run_with_timeout(c.args())
    assert completed.returncode == 2
    assert completed.stderr.decode() == (
        f"streamer: error: configuration file {c.config} {expected}\n"
    )


def test_a_lane_output_over_its_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "spells.json"
    path.write_bytes(b" " * 11)
    with pytest.raises(LaneOutputError) as raised:
        read_regular_file(path, 10, "lane spells (spells.json)", LaneOutputError)
    assert (
        raised.value.one_line() == "lane spells (spells.json) is larger than its bound of 10 bytes"
    )
    assert read_regular_file(path, 11, "x", LaneOutputError) == b" " * 11


def test_a_fifo_without_a_writer_does_not_block_the_bounded_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ConfigurationError, match="is not a regular file"):
        read_regular_file(tmp_path / "pipe", 10, "configuration file pipe", ConfigurationError)


@pytest.mark.parametrize("document_id", [["--document-id", "bridge"], []])
def test_import_reads_a_fifo_input_like_process_substitution(
    tmp_path: Path, document_id: list[str]
) -> None:
    script = 'exec "$0" -m streamer import srt <(cat "$1") "${@:2}"'
    completed = subprocess.run(
        ["bash", "-c", script, sys.executable, str(IMPORT / "bridge.srt"), *document_id],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    if document_id:
        assert completed.returncode == 0, completed.stderr
        from_file = invoke(["import", "srt", str(IMPORT / "bridge.srt")])
        assert (from_file.status, from_file.stdout.count(b"\n")) == (0, 7)
        assert completed.stdout == from_file.stdout
    else:
        assert completed.returncode == 2
        assert completed.stderr.decode().startswith(
            "streamer: error: --document-id is required when INPUT ("
        )
        assert completed.stderr.decode().endswith(
            ") is not a regular file (hint: name the document with --document-id ID)\n"
        )


def test_import_still_refuses_a_folder_or_a_missing_input(tmp_path: Path) -> None:
    run = invoke(["import", "srt", str(tmp_path), "--document-id", "x"])
    assert run.status == 2
    assert "is a folder, not a transcript file" in run.stderr


@pytest.mark.parametrize("how", ["fifo", "link to /dev/zero"])
def test_validate_refuses_a_bundle_member_that_is_not_a_regular_file(
    tmp_path: Path, how: str
) -> None:
    c = case(tmp_path / "case")
    out = tmp_path / "b"
    run = invoke(["bundle", *c.args("--output", str(out))[1:]])
    assert run.status == 0, run.stderr
    member = out / "lanes" / "spells.json"
    member.unlink()
    if how == "fifo":
        os.mkfifo(member)
    else:
        member.symlink_to("/dev/zero")
    completed = run_with_timeout(["validate", str(out)])
    assert completed.returncode == 3
    assert completed.stdout == b""
    assert b"lanes/spells.json" in completed.stderr
    assert b"is not a regular file" in completed.stderr

"""Concurrent ``streamer bundle`` runs onto one ``--output`` are serialized by the lock file
beside it: the second waits while the first publishes, then checks the destination afresh.
Nothing is left behind (no lock file, no temporary folder). The forced swap is one
``renameat2(RENAME_EXCHANGE)`` where the system has it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from streamer.output import bundle_publication
from streamer.output.bundle_publication import exchange, lock_path
from tests.bundle_support import bundle_args, bundle_files, receipt, run_bundle
from tests.paused import paused_streamer
from tests.support import REPO, Case, ref, spell, stopped, units, write_case


def start(
    case: Case, out: Path, *extra: str, staged: Path | None = None
) -> subprocess.Popen[bytes]:
    """``streamer bundle`` in a subprocess; with ``staged``, paused once its bundle is staged
    until that FIFO is opened for writing and closed (``tests.paused``)."""
    args = bundle_args(case, out, *extra)
    command = (
        [sys.executable, "-m", "streamer", *args]
        if staged is None
        else paused_streamer("staged", staged, *args)
    )
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def finish(process: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    stdout, stderr = process.communicate(timeout=120)
    return process.returncode, stdout, stderr


def waiting_for_a_lock(pid: int) -> bool:
    """Whether ``pid`` is blocked on a file lock (a ``->`` line of /proc/locks)."""
    with open("/proc/locks", encoding="ascii") as locks:
        return any(
            line.split()[1] == "->" and line.split()[5] == str(pid)
            for line in locks
            if len(line.split()) > 5
        )


def wait_until_waiting_for_the_lock(process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not waiting_for_a_lock(process.pid):
        assert process.poll() is None, "the second run did not wait for the first"
        assert time.monotonic() < deadline, "the second run never waited for the lock"
        time.sleep(0.01)


def two_cases(root: Path) -> tuple[Case, Case]:
    first = write_case(root / "a", units(["u1", "u2", "u3"]), {"spells": [spell("s1", ref("u1"))]})
    second = write_case(root / "b", units(["u1", "u2", "u3"]), {"spells": [spell("s2", ref("u3"))]})
    return first, second


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")
@pytest.mark.parametrize("force", [False, True])
def test_a_second_publisher_waits_for_the_first_then_checks_afresh(
    tmp_path: Path, force: bool
) -> None:
    first, second = two_cases(tmp_path)
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "bundle"
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    a = start(first, out, staged=fifo)
    with open(fifo, "wb"):  # a holds the lock, its bundle staged
        b = start(second, out, *(["--force"] if force else []))
        wait_until_waiting_for_the_lock(b)
    status_a, stdout_a, stderr_a = finish(a)
    status_b, stdout_b, stderr_b = finish(b)
    assert (status_a, stderr_a) == (0, b"")
    assert orjson.loads(stdout_a)["status"] == "ok"
    files = bundle_files(out)
    if force:
        assert (status_b, stderr_b) == (0, b"")
        assert b'"s2"' in files["lanes/spells.json"]
    else:
        assert (status_b, stdout_b) == (2, b"")
        assert (
            stderr_b
            == (
                f"streamer: error: output {out} already exists (hint: use --force to replace it)\n"
            ).encode()
        )
        assert b'"s1"' in files["lanes/spells.json"]
    assert sorted(path.name for path in parent.iterdir()) == ["bundle"]


def test_a_lock_file_left_by_a_killed_run_does_not_block(tmp_path: Path) -> None:
    first, _ = two_cases(tmp_path)
    out = tmp_path / "bundle"
    lock_path(out).write_bytes(b"")  # SIGKILL leaves the file; its lock died with the process
    receipt(run_bundle(first, out))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "b", "bundle"]


def test_a_waiting_publisher_interrupted_leaves_nothing(tmp_path: Path) -> None:
    first, second = two_cases(tmp_path)
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "bundle"
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    a = start(first, out, staged=fifo)
    with open(fifo, "wb"):
        b = start(second, out, "--force")
        if Path("/proc/locks").exists():
            wait_until_waiting_for_the_lock(b)
        b.send_signal(signal.SIGTERM)
        assert finish(b) == (143, b"", stopped(143))
    assert finish(a)[0] == 0
    assert sorted(path.name for path in parent.iterdir()) == ["bundle"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_exchange_swaps_two_folders_atomically(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x").write_bytes(b"b")
    assert exchange(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "a" / "x").read_bytes() == b"b"
    assert (tmp_path / "b" / "x").read_bytes() == b"a"


def test_the_fallback_swap_replaces_a_bundle_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamer import api

    first, second = two_cases(tmp_path)
    out = tmp_path / "bundle"
    receipt(run_bundle(first, out))
    monkeypatch.setattr(bundle_publication, "exchange", lambda a, b: False)
    api.bundle(api.load_config(second.config), second.source, second.lanes_dir, out, force=True)
    assert b'"s2"' in bundle_files(out)["lanes/spells.json"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "b", "bundle"]

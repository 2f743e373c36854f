"""An interrupted ``streamer bundle`` (SIGTERM, Ctrl-C) leaves no bundle and no temporary
folder, and an existing bundle it was to replace stays as it was.

The source comes through a pipe that stays open: once the process has consumed every
byte written and sleeps, it is blocked reading the rest of the stream, mid-pass. Only then
is it signalled, so the outcome does not depend on timing.
"""

from __future__ import annotations

import array
import fcntl
import os
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.bundle_support import bundle_args, bundle_files, receipt, run_bundle
from tests.support import REPO, jsonl_bytes, ref, spell, units, write_case

IDS = [f"u{i}" for i in range(3000)]


def pending_bytes(pipe: int) -> int:
    count = array.array("i", [0])
    fcntl.ioctl(pipe, termios.FIONREAD, count)
    return count[0]


def state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rpartition(")")[2].split()[0]


def wait_until_blocked_reading(process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Poll until the process has read everything written to its stdin and sleeps."""
    assert process.stdin is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the process ended before it was signalled"
        if pending_bytes(process.stdin.fileno()) == 0 and state(process.pid) == "S":
            return
        time.sleep(0.01)
    raise AssertionError("the process never blocked reading its stdin")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.parametrize("existing", [False, True])
def test_interrupted_bundle_publishes_nothing(
    tmp_path: Path, signum: int, status: int, existing: bool
) -> None:
    doc_units = units(IDS)
    case = write_case(
        tmp_path / "case",
        doc_units,
        {"spells": [spell("s1", ref("u10", "u12")), spell("s2", ref("u2990"))]},
    )
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "bundle"
    before = None
    if existing:
        receipt(run_bundle(case, out))
        before = bundle_files(out)
    data = jsonl_bytes("doc-1", doc_units)
    half = data.index(b'{"unit_id":"u2000"')  # well past the first reference, mid-stream

    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *bundle_args(case, out, "--force", source="-")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        # A background parent may ignore SIGINT; Python then would too.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdin is not None
    try:
        process.stdin.write(data[:half])
        process.stdin.flush()
        wait_until_blocked_reading(process)
        process.send_signal(signum)
        assert process.wait(timeout=60) == status
    finally:
        if process.poll() is None:
            process.kill()
        process.stdin.close()
        process.wait()
    assert process.stdout is not None and process.stderr is not None
    stdout, stderr = process.stdout.read(), process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    assert stdout == b""
    assert stderr == b""
    assert sorted(path.name for path in parent.iterdir()) == (["bundle"] if existing else [])
    if existing:
        assert bundle_files(out) == before

"""An interrupted ``streamer bundle`` (SIGTERM, Ctrl-C, SIGHUP, SIGQUIT) leaves no bundle and
no temporary folder, and an existing bundle it was to replace stays as it was: while the
source is read, while the staging folder exists (complete) and while the swap is held.

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

import orjson
import pytest

from tests.bundle_support import bundle_args, bundle_files, receipt, run_bundle
from tests.paused import paused_streamer
from tests.support import REPO, jsonl_bytes, ref, spell, stopped, units, write_case

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
    assert stderr == stopped(status)
    assert sorted(path.name for path in parent.iterdir()) == (["bundle"] if existing else [])
    if existing:
        assert bundle_files(out) == before


# -- signalled at the points a publication can be interrupted -----------------------------------
#
# tests.paused stops the run at POINT until the FIFO is opened for writing and closed: the
# test opens it (which returns once the run waits there), signals, then closes it.


def paused_run(args: list[str], point: str, fifo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        paused_streamer(point, fifo, *args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def finish(process: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    stdout, stderr = process.communicate(timeout=120)
    return process.returncode, stdout, stderr


SIGNALS = [
    (signal.SIGTERM, 143),
    (signal.SIGINT, 130),
    (signal.SIGHUP, 129),
    (signal.SIGQUIT, 131),
]


@pytest.mark.parametrize(("signum", "status"), SIGNALS)
@pytest.mark.parametrize("point", ["staged", "swap"])
def test_a_bundle_signalled_while_staged_or_swapping_keeps_the_old_one(
    tmp_path: Path, signum: int, status: int, point: str
) -> None:
    case = write_case(tmp_path / "case", units(IDS[:50]), {"spells": [spell("s1", ref("u10"))]})
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "bundle"
    receipt(run_bundle(case, out))
    before = bundle_files(out)
    # The new bundle would differ: one more lane record.
    (case.lanes_dir / "spells.json").write_bytes(
        (case.lanes_dir / "spells.json")
        .read_bytes()
        .replace(b'"records":[', b'"records":[' + orjson.dumps(spell("s0", ref("u1"))) + b",")
    )
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    process = paused_run(bundle_args(case, out, "--force"), point, fifo)
    with open(fifo, "wb"):  # returns once the run waits at the point
        staging = [path.name for path in parent.iterdir() if path.name.endswith(".partial")]
        assert len(staging) == 1  # the staging folder exists, complete
        assert sorted(path.name for path in parent.iterdir()) == sorted(
            [".bundle.lock", "bundle", *staging]
        )
        process.send_signal(signum)
    assert finish(process) == (status, b"", stopped(status))
    assert sorted(path.name for path in parent.iterdir()) == ["bundle"]
    assert bundle_files(out) == before


@pytest.mark.parametrize(("signum", "status"), SIGNALS)
def test_a_single_file_output_signalled_while_its_temporary_file_exists(
    tmp_path: Path, signum: int, status: int
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "e.json").write_bytes(b"old\n")
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    vtt = REPO / "fixtures" / "import" / "bridge.vtt"
    process = paused_run(
        ["import", "webvtt", str(vtt), "--output", str(out / "e.json")], "partial", fifo
    )
    with open(fifo, "wb"):
        (temporary,) = [path.name for path in out.iterdir() if path.name != "e.json"]
        assert temporary.startswith(".e.json.") and temporary.endswith(".partial")
        process.send_signal(signum)
    assert finish(process) == (status, b"", stopped(status))
    assert sorted(path.name for path in out.iterdir()) == ["e.json"]
    assert (out / "e.json").read_bytes() == b"old\n"


def test_a_hang_up_ignored_at_start_stays_ignored(tmp_path: Path) -> None:
    """nohup: SIGHUP ignored by the parent is not turned into an interruption."""
    case = write_case(tmp_path / "case", units(IDS[:50]), {"spells": [spell("s1", ref("u10"))]})
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)

    def ignore_hangup() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    process = subprocess.Popen(
        paused_streamer("swap", fifo, *bundle_args(case, tmp_path / "b")),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=ignore_hangup,
    )
    with open(fifo, "wb"):
        process.send_signal(signal.SIGHUP)
    status, stdout, stderr = finish(process)
    assert (status, stderr) == (0, b"")
    assert orjson.loads(stdout)["status"] == "ok"
    assert (tmp_path / "b" / "index.json").is_file()

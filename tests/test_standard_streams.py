"""Closed standard streams (``<&-``, ``>&-``, ``2>&-``) and a terminal as standard input:
the documented status, never a traceback, no message forged into the data, and one Ctrl-D
(or Ctrl-C) ends reading a terminal."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bundle_support import receipt
from tests.run_support import in_folder
from tests.support import (
    REPO,
    Case,
    invoke,
    jsonl_bytes,
    ref,
    shown_on_a_terminal,
    spell,
    stopped,
    units,
    write_case,
)


def case(root: Path) -> Case:
    return write_case(root, units(["u1", "u2", "u3"]), {"spells": [spell("s1", ref("u2"))]})


def shell(args: list[str], redirection: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m streamer ARGS REDIRECTION`` through sh, e.g. with ``2>&-``."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m streamer "$@" {redirection}', sys.executable, *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )


def test_closed_stderr_keeps_messages_out_of_stdout_and_keeps_the_status(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    c.source.write_bytes(b"not json\n")
    completed = shell(c.args("--output", "-"), "2>&-")
    assert (completed.returncode, completed.stdout) == (3, b"")


def test_closed_stderr_still_publishes_and_no_file_takes_its_descriptor(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    (c.lanes_dir / "spells.json").unlink()  # a warning, written to the closed stderr
    out = tmp_path / "e.json"
    completed = shell(c.args("--output", str(out)), "2>&-")
    assert (completed.returncode, completed.stdout) == (0, b"")
    assert out.read_bytes().startswith(b'{"artifact_kind":"source/evidence-context"')
    assert b"warning" not in out.read_bytes()


@pytest.mark.parametrize("command", ["evidence", "bundle"])
def test_closed_stdout_is_a_usage_error_before_anything_is_published(
    tmp_path: Path, command: str
) -> None:
    c = case(tmp_path / "case")
    args = (
        c.args()
        if command == "evidence"
        else ["bundle", *c.args("--output", str(tmp_path / "b"))[1:]]
    )
    completed = shell(args, ">&-")
    assert completed.returncode == 2
    assert completed.stderr == (
        b"streamer: error: standard output is closed (hint: redirect it (> /dev/null "
        b"discards it), or use --output FILE)\n"
    )
    assert not (tmp_path / "b").exists()


def test_closed_stdout_with_an_output_file_publishes(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    completed = shell(c.args("--output", str(tmp_path / "e.json")), ">&-")
    assert (completed.returncode, completed.stderr) == (0, b"")
    assert (tmp_path / "e.json").is_file()


def test_closed_stdin_with_source_dash_is_a_usage_error(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    completed = shell(c.args(source="-"), "<&-")
    assert (completed.returncode, completed.stdout) == (2, b"")
    assert completed.stderr == (
        b"streamer: error: standard input is closed (hint: redirect it from a file, or "
        b"name the file)\n"
    )


def on_a_terminal(args: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *args],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(slave)
    return process, master


def test_one_ctrl_d_ends_a_terminal_as_standard_input(tmp_path: Path) -> None:
    c = case(tmp_path / "case")
    process, master = on_a_terminal(
        ["chunk", "--config", str(c.config), "--source", "-", "--quiet"]
    )
    try:
        for line in jsonl_bytes("doc-1", units(["u1", "u2", "u3"])).splitlines():
            os.write(master, line + b"\n")
        os.write(master, b"\x04")  # one Ctrl-D: the end of the input
        stdout, stderr = process.communicate(timeout=120)
    finally:
        os.close(master)
    assert (process.returncode, stderr) == (0, b"")
    assert stdout.count(b"\n") == 1  # one chunk


@pytest.mark.parametrize("command", ["chunk", "import"])
def test_ctrl_c_while_reading_a_terminal_ends_quietly(tmp_path: Path, command: str) -> None:
    c = case(tmp_path / "case")
    args = (
        ["chunk", "--config", str(c.config), "--source", "-"]
        if command == "chunk"
        else ["import", "webvtt", "-", "--document-id", "d"]
    )
    process, master = on_a_terminal(args)
    try:
        os.write(master, b'{"document_id":"d"}\n' if command == "chunk" else b"WEBVTT\n\n")
        # Wait until the run has read the line and blocks for more, then Ctrl-C.
        wait_until_reading(process.pid)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        os.close(master)
    assert (process.returncode, stdout, stderr) == (130, b"", stopped(130))


def wait_until_reading(pid: int) -> None:
    """Until the process sleeps in a read of its terminal with nothing left to read."""
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            state = stat.read().rpartition(")")[2].split()[0]
        with open(f"/proc/{pid}/wchan", encoding="ascii") as wchan:
            waiting = wchan.read()
        if state == "S" and ("tty" in waiting or waiting == "wait_woken"):
            return
        time.sleep(0.01)
    raise AssertionError("the process never blocked reading its terminal")


def test_report_refuses_to_write_html_to_a_terminal_unless_asked(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    receipt(invoke(["run", "bridge.vtt", "--output", "s"], cwd=tmp_path))
    status, shown, stderr = shown_on_a_terminal(["report", "s"], "stdout", tmp_path)
    assert (status, shown) == (2, b"")
    assert stderr == (
        b"streamer: error: streamer report writes an HTML page, not text for a terminal "
        b"(hint: write it to a file: --output s.html (or --output - to print it here))\n"
    )
    status, shown, stderr = shown_on_a_terminal(
        ["report", "s", "--output", "-"], "stdout", tmp_path
    )
    assert (status, stderr) == (0, b"")
    assert shown.startswith(b"<!DOCTYPE html>")
    piped = invoke(["report", "s"], cwd=tmp_path)  # not a terminal: stdout as before
    assert piped.status == 0
    assert piped.stdout.replace(b"\n", b"\r\n") == shown  # the terminal shows \n as \r\n

"""Measuring one child from outside: wall time, CPU time and peak RSS.

Every contender runs in its own subprocess, spawned by ``benchmarks/launch.py`` (a small
process that reads the child's own rusage with ``os.wait4``), so the harness's size never
leaks into the child's peak RSS.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE / "launch.py"
REPO = HERE.parent
MiB = 1 << 20


@dataclass
class Child:
    status: int | None  # exit status; None when killed at the timeout
    wall: float
    peak_rss: int  # bytes
    stderr: str
    cpu: float = 0.0  # user + system seconds


def measure(
    command: Sequence[str],
    *,
    stdin: Path | None = None,
    stdout: Path | None = None,
    timeout: float,
) -> Child:
    """Run ``command`` once through the launcher, which spawns it, times it and reads its
    own rusage; standard input and output from and to files when given."""
    with contextlib.ExitStack() as stack:
        stdin_file: IO[bytes] | int = (
            stack.enter_context(open(stdin, "rb")) if stdin else subprocess.DEVNULL
        )
        stdout_file: IO[bytes] | int = (
            stack.enter_context(open(stdout, "wb")) if stdout else subprocess.DEVNULL
        )
        stderr_file = stack.enter_context(tempfile.TemporaryFile())
        report = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "report.json"
        began = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-S", str(LAUNCHER), str(report), *command],
            stdin=stdin_file,
            stdout=stdout_file,
            stderr=stderr_file,
            cwd=REPO,
            start_new_session=True,  # a process group: the timeout ends the child too
        )
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return Child(None, time.perf_counter() - began, 0, "")
        stderr_file.seek(0)
        error_text = stderr_file.read().decode("utf-8", "replace")
        if process.returncode != 0 or not report.exists():
            return Child(process.returncode or 1, 0.0, 0, error_text + "(launcher failed)")
        reported = orjson.loads(report.read_bytes())
    return Child(
        reported["status"], reported["wall"], reported["peak_rss"], error_text, reported["cpu"]
    )


def warm(path: Path) -> None:
    """Read ``path`` once so that every contender starts with it in the page cache."""
    with open(path, "rb", buffering=0) as stream:
        while stream.read(16 * MiB):
            pass

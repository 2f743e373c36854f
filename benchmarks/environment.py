"""The machine and the versions, for the head of ``RESULTS.md``."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.contenders import Contender, version_of
from benchmarks.measure import REPO


def _first(path: str, prefix: str) -> str | None:
    with contextlib.suppress(OSError):
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":" if ":" in line else "=", 1)[1].strip().strip('"')
    return None


def _git(*args: str) -> str:
    found = subprocess.run(["git", *args], capture_output=True, cwd=REPO, check=False)
    return found.stdout.decode().strip()


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def environment(contenders: Iterable[Contender]) -> dict[str, str]:
    ram = "unknown"
    with contextlib.suppress(ValueError, IndexError, AttributeError):
        ram = f"{int((_first('/proc/meminfo', 'MemTotal:') or '').split()[0]) / 1024**2:.1f} GiB"
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--", "streamer")
    env = {
        "CPU": f"{_first('/proc/cpuinfo', 'model name') or 'unknown'}, {os.cpu_count()} cores",
        "RAM": ram,
        "OS": f"{_first('/etc/os-release', 'PRETTY_NAME=') or platform.system()}, "
        f"Linux {platform.release()}",
        "Python": platform.python_version(),
        "streamer": f"{version_of('streamer')} (commit {commit or 'unknown'}"
        + (", with uncommitted changes under streamer/)" if dirty else ")"),
    }
    for contender in contenders:
        env.update(contender.versions())
    env["matplotlib"] = version_of("matplotlib")
    env["load average at start (1, 5, 15 min)"] = load_average()
    return env


def print_result(text: str, result: dict[str, Any], json_path: Path | None) -> int:
    """Print a benchmark's table, the machine and the load; write ``result`` to
    ``json_path`` when given. The exit status: 0 when every check of ``result`` held."""
    print(text)
    print()
    for key, value in environment([]).items():
        if key != "matplotlib":
            print(f"- {key}: {value}")
    print(f"- load average at the end: {load_average()}")
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0 if all(result["checks"].values()) else 1

"""Run one command and report its exit status, wall time and peak RSS.

``python -m benchmarks.launch REPORT COMMAND...`` spawns COMMAND (standard streams
inherited), waits for it with ``os.wait4`` and writes ``{"status", "wall", "cpu", "peak_rss"}``
(seconds, CPU seconds, bytes) as JSON to the file REPORT.

Why a launcher: on Linux a child's ``ru_maxrss`` starts from the resident size of the
process that forked it (``exec`` keeps the old address space's high-water mark), so a
child spawned by a big process (the harness, pytest) reports at least the parent's size.
Spawned from this small process instead, a child's peak RSS is exact above the
launcher's own size (about 10 MiB, measured by the harness as the "launcher" baseline).
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m benchmarks.launch REPORT COMMAND...", file=sys.stderr)
        return 2
    report, command = argv[0], argv[1:]
    began = time.perf_counter()
    pid = os.posix_spawnp(command[0], command, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - began
    result = {
        "status": os.waitstatus_to_exitcode(status),
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_rss": usage.ru_maxrss * 1024,
    }
    with open(report, "w", encoding="utf-8") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

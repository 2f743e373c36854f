"""Run ``streamer`` in this process and say how its CPU time splits: this process's own
and that of the worker processes it waited for (``--jobs``).

``python -m benchmarks.split_cpu REPORT ARGS...`` runs ``streamer ARGS...`` (its entry
point, in process) and writes ``{"main", "workers"}`` (user + system seconds, from
``getrusage`` of this process and of its waited-for children) as JSON to the file REPORT.
With a worker on a core of its own, the main process's CPU time is the run's critical
path: what ``--jobs`` leaves serial (``benchmarks.jobs_bench``).
"""

from __future__ import annotations

import json
import resource
import sys

from streamer.cli.main import main as streamer


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> int:
    report, args = argv[0], argv[1:]
    status = 0
    try:
        streamer(args)
    except SystemExit as exited:
        status = exited.code if isinstance(exited.code, int) else 1
    finally:
        with open(report, "w", encoding="utf-8") as out:
            json.dump(
                {"main": _cpu(resource.RUSAGE_SELF), "workers": _cpu(resource.RUSAGE_CHILDREN)},
                out,
            )
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

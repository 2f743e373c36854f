"""The campaign benchmark (``python -m benchmarks.campaign_bench``): a campaign of 150
sessions (the shared CRD3 episodes repeated under other document IDs) through
``streamer batch`` with the built-in configuration (the rules lanes: NPCs, places, item
events, spells), then the campaign registry built again from the 150 bundles.

Reported: the batch's wall and CPU time (it ends by writing the registry and the page);
the registry build's wall and CPU time (``api.campaign_registry`` in a process of its own,
median of ``--repeat``, with the same for a process that only imports streamer, to tell
start-up apart), its peak RSS, and the peak of Python allocations (``tracemalloc``) while
building the registry of the first 10, 50 and 150 sessions: the builder reads one bundle
at a time (its index and its entity and cast lanes, never its evidence document), so its
memory follows the registry, not the bundles. Skipped (exit status 0, one line) when the
episodes are absent. Not part of the test suite; on a shared machine the numbers move with
the neighbours' load: quote medians and CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data"
FOLDERS = (SHARED / "crd3" / "episodes", SHARED / "crd3-more" / "episodes")

# Run in a process of its own: the build's time, its RSS and its Python allocations.
BUILD = """
import json, sys, time
from pathlib import Path
from streamer import api
root = Path(sys.argv[1])
if sys.argv[2] == "import":
    raise SystemExit(0)
start, cpu = time.perf_counter(), time.process_time()
result = api.campaign_registry(root)
print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                  "bytes": result.path.stat().st_size, "entries": len(result.registry.entries)}))
"""

PEAKS = """
import json, sys, tracemalloc
from pathlib import Path
from streamer.api.config import default_registry
from streamer.api.registries import batch_lines, session_sources
from streamer.output.registry_builder import build_registry
root = Path(sys.argv[1])
sources = session_sources(root, batch_lines(root))
kinds = default_registry()
out = {}
for count in (10, 50, 150):
    tracemalloc.start()
    registry = build_registry(root, sources[:count], kinds)
    out[count] = [tracemalloc.get_traced_memory()[1], len(registry.entries)]
    tracemalloc.stop()
    del registry
print(json.dumps(out))
"""


TICKS = os.sysconf("SC_CLK_TCK")


def _tree_cpu(root: int, seen: dict[int, float]) -> None:
    """Record the CPU seconds (user + system) of ``root`` and of every process below it
    (the batch's fork server and its workers, whose usage ``wait4`` never reports)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / TICKS
    for pid, cpu in times.items():
        ancestor = pid
        while ancestor not in (0, 1, root) and ancestor in parents:
            ancestor = parents[ancestor]
        if ancestor == root:
            seen[pid] = max(seen.get(pid, 0.0), cpu)


def timed(command: Sequence[str], tree: bool = False) -> tuple[float, float, int, bytes]:
    """Wall seconds, CPU seconds (user + system; with ``tree``, of every process below it
    too, sampled every 0.1 s), peak RSS (KiB) and standard output of ``command``."""
    start = time.perf_counter()
    seen: dict[int, float] = {}
    with tempfile.TemporaryFile() as output:
        child = subprocess.Popen(command, stdout=output, cwd=REPO)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG if tree else 0)
            if pid:
                break
            _tree_cpu(child.pid, seen)
            time.sleep(0.1)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        out = output.read()
    if child.returncode != 0:
        sys.exit(f"campaign_bench: {' '.join(command[:4])} failed")
    own = usage.ru_utime + usage.ru_stime
    below = sum(cpu for pid, cpu in seen.items() if pid != child.pid)
    return seconds, own + below, usage.ru_maxrss, out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=150)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5, help="registry builds (median)")
    parser.add_argument("--keep", type=Path, help="build the campaign here, and keep it")
    args = parser.parse_args(argv)
    episodes = sorted(
        path for folder in FOLDERS if folder.is_dir() for path in folder.glob("*.json")
    )
    if not episodes:
        print(f"campaign_bench: skipped: no CRD3 episodes in {SHARED}")
        return 0
    with tempfile.TemporaryDirectory(prefix="streamer-campaign-bench-") as temporary:
        root = args.keep or Path(temporary)
        root.mkdir(parents=True, exist_ok=True)
        rows = ["transcript,format,document_id"]
        for number in range(args.sessions):
            episode = episodes[number % len(episodes)]
            rows.append(f"{episode},crd3,S{number + 1:03}-{episode.stem}")
        (root / "sessions.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
        out = root / "out"
        batch = [sys.executable, "-m", "streamer", "batch", str(root / "sessions.csv")]
        batch += ["--output-dir", str(out), "--workers", str(args.workers), "--quiet"]
        batch_seconds, batch_cpu, batch_rss, _ = timed(batch, tree=True)
        builds, starts = [], []
        for _ in range(args.repeat):  # alternated: the build, then start-up alone
            builds.append(timed([sys.executable, "-c", BUILD, str(out), "build"]))
            starts.append(timed([sys.executable, "-c", BUILD, str(out), "import"]))
        _, _, _, peaks_out = timed([sys.executable, "-c", PEAKS, str(out)])
    inner = [json.loads(build[3]) for build in builds]
    peaks = json.loads(peaks_out)
    size = sum(path.stat().st_size for path in episodes)
    print(
        f"streamer campaign benchmark: {args.sessions} sessions ({len(episodes)} CRD3 episodes "
        f"repeated, {size / 1e6:.1f} MB of transcripts each round), --workers {args.workers}, "
        f"{len(os.sched_getaffinity(0))} CPUs, median of {args.repeat} builds"
    )
    print(f"registry: {inner[0]['bytes'] / 1e6:.2f} MB, {inner[0]['entries']} entries")
    print("| what | wall (s) | CPU (s) | peak RSS (MiB) |")
    print("| --- | --- | --- | --- |")
    print(f"| streamer batch ({args.sessions} sessions) | {batch_seconds:.1f} | {batch_cpu:.1f} | "
          f"{batch_rss / 1024:.0f} (the batch process) |")  # fmt: skip
    build_wall = statistics.median(build[0] for build in builds)
    build_cpu = statistics.median(build[1] for build in builds)
    start_wall = statistics.median(start[0] for start in starts)
    start_cpu = statistics.median(start[1] for start in starts)
    print(f"| registry build, whole process | {build_wall:.2f} | {build_cpu:.2f} | "
          f"{max(build[2] for build in builds) / 1024:.0f} |")  # fmt: skip
    print(f"| start-up alone (python, import streamer) | {start_wall:.2f} | {start_cpu:.2f} | "
          f"{max(start[2] for start in starts) / 1024:.0f} |")  # fmt: skip
    inner_wall = statistics.median(item["seconds"] for item in inner)
    inner_cpu = statistics.median(item["cpu"] for item in inner)
    print(f"| registry build alone (in process) | {inner_wall:.2f} | {inner_cpu:.2f} | |")
    print(f"the build is {100 * inner_wall / batch_seconds:.2f}% of the batch's wall time, "
          f"{100 * inner_cpu / batch_cpu:.2f}% of its CPU time")  # fmt: skip
    print("| sessions | Python allocations, peak (MiB) | entries |")
    print("| --- | --- | --- |")
    for count, (peak, entries) in peaks.items():
        print(f"| {count} | {peak / 2**20:.1f} | {entries} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

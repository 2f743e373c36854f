"""The batch benchmark (``python -m benchmarks.batch_bench``, part of ``make bench``):
``streamer batch`` over the four CRD3 episodes of ``../shared/data/crd3`` with 1 and 2
local workers.

Each measurement is a fresh output folder (no session skipped), timed from outside around
the ``streamer batch`` subprocess; the median of ``--repeat`` runs is reported, with the
speed-up of 2 workers over 1. The bundles of both worker counts are checked identical.
Skipped (exit status 0, one line) when the episodes are absent. This is not part of the
test suite and never fails it; on a shared machine the numbers move with the neighbours'
load, so say so when you quote them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CRD3 = REPO.parent / "shared" / "data" / "crd3" / "episodes"

CONFIG = """\
# The batch benchmark's configuration: the spells lane by the built-in rules (no model),
# normalized against the SRD catalog, its evidence published.
pipeline:
  lanes:
    - {id: spells, artifact_kind: dnd/spell-casts, engine: rules}
output:
  module: json
  options:
    evidence_context:
      enabled: true
      window_units: 3
      lanes: [spells]
"""


def published(folder: Path) -> dict[str, bytes]:
    """The bundles and reports of a batch (not the work folders, not the summary, whose
    timings differ from run to run)."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and ".work" not in relative.split("/")[0] and relative != "batch.jsonl":
            out[relative] = path.read_bytes()
    return out


def batch_once(root: Path, workers: int, tag: str) -> tuple[float, int, dict[str, bytes]]:
    output = root / f"out-{workers}-{tag}"
    command = [
        sys.executable,
        "-m",
        "streamer",
        "batch",
        "--config",
        str(root / "streamer.yaml"),
        str(root / "episodes.csv"),
        "--output-dir",
        str(output),
        "--workers",
        str(workers),
        "--quiet",
    ]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            errors.seek(0)
            sys.exit(
                f"batch_bench: streamer batch --workers {workers} exited {child.returncode}: "
                + errors.read().decode("utf-8", "replace").strip()
            )
    result = published(output)
    shutil.rmtree(output)
    return seconds, usage.ru_maxrss, result


def run_once(root: Path, transcript: Path) -> tuple[float, int]:
    """``streamer run`` of one transcript: wall time and peak RSS (KiB), one process."""
    command = [
        sys.executable,
        "-m",
        "streamer",
        "run",
        "--config",
        str(root / "streamer.yaml"),
        str(transcript),
        "--format",
        "crd3",
        "--output",
        str(root / "single"),
        "--quiet",
    ]
    start = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO
    )
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("batch_bench: streamer run failed")
    return seconds, usage.ru_maxrss


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count (median)")
    args = parser.parse_args(argv)
    episodes = sorted(CRD3.glob("*.json")) if CRD3.is_dir() else []
    if not episodes:
        print(f"batch_bench: skipped: no CRD3 episodes in {CRD3}")
        return 0
    size = sum(path.stat().st_size for path in episodes)
    with tempfile.TemporaryDirectory(prefix="streamer-batch-bench-") as temporary:
        root = Path(temporary)
        (root / "streamer.yaml").write_text(CONFIG, encoding="utf-8")
        rows = ["transcript,format,document_id"]
        rows += [f"{path},crd3,{path.stem}" for path in episodes]
        (root / "episodes.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
        timings: dict[int, list[float]] = {1: [], 2: []}
        peaks: dict[int, int] = {1: 0, 2: 0}
        outputs: dict[int, dict[str, bytes]] = {}
        for repeat in range(args.repeat):
            for workers in (1, 2):
                seconds, peak, result = batch_once(root, workers, str(repeat))
                timings[workers].append(seconds)
                peaks[workers] = max(peaks[workers], peak)
                outputs[workers] = result
        if outputs[1] != outputs[2]:
            sys.exit("batch_bench: the bundles of 1 and 2 workers differ")
        largest = max(episodes, key=lambda path: path.stat().st_size)
        session_seconds, session_peak = run_once(root, largest)
    median = {workers: statistics.median(values) for workers, values in timings.items()}
    cpus = len(os.sched_getaffinity(0))
    print(
        f"streamer batch: {len(episodes)} CRD3 episodes ({size / 1e6:.1f} MB of transcripts), "
        f"{len(outputs[1])} published files, {cpus} CPUs, median of {args.repeat}"
    )
    print("| workers | wall (s), median | runs (s) | peak RSS of the batch process (MiB) |")
    print("| --- | --- | --- | --- |")
    for workers in (1, 2):
        runs = ", ".join(f"{value:.2f}" for value in timings[workers])
        print(f"| {workers} | {median[workers]:.2f} | {runs} | {peaks[workers] / 1024:.0f} |")
    print(
        f"one session alone (streamer run, the largest episode, {largest.name}): "
        f"{session_seconds:.2f} s, peak RSS {session_peak / 1024:.0f} MiB"
    )
    print(f"speed-up with 2 workers: {median[1] / median[2]:.2f}x (bundles identical)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

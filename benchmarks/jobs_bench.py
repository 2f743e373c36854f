"""``streamer run --jobs 2`` against ``--jobs 1``, model-free, on ``run_bench``'s transcript.

    python -m benchmarks.jobs_bench                       # 200 MB CRD3, 3 runs of each
    python -m benchmarks.jobs_bench --size 30MB --repeat 1 --jobs 1,2,3

The transcript and configuration are ``benchmarks.run_bench``'s (same seed, same bytes: the
spells lane by the rules, evidence on, chunks of 100). ``--repeat`` times, alternately, one
``streamer run --jobs N`` from an empty work folder for each N of ``--jobs``, each its own
subprocess (``benchmarks.measure``: wall; CPU of the process and of the workers it waited
for; peak RSS; ``benchmarks.split_cpu``: the main process's own CPU, the run's critical
path when each worker has a core of its own). Reported: medians, each stage's seconds
(the receipt's), the ratio of each N to the first, and the load average after each run.

Checked beside the figures: every N publishes the bundle, the report and the candidates
files of the first, byte for byte, in every run; ``streamer validate`` finds the bundle
valid.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.environment import print_result
from benchmarks.import_bench import parse_size
from benchmarks.measure import Child, MiB, measure, warm
from benchmarks.run_bench import (
    CONFIG,
    DOCUMENT_ID,
    GLOSSARY,
    SEED,
    STAGES,
    add_arguments,
    data_folder,
    heading,
)
from benchmarks.transcripts import generate


def _digests(output: Path) -> dict[str, str]:
    """The SHA-256 of every published file and candidates file of the run into ``output``."""
    work = output.with_name(output.name + ".work")
    files = [*output.rglob("*"), output.with_name(output.name + ".html")]
    files += list((work / "candidates").glob("*.jsonl"))
    return {
        os.fspath(path.relative_to(output.parent)).replace(output.name, "OUT", 1): (
            hashlib.sha256(path.read_bytes()).hexdigest()
        )
        for path in sorted(files)
        if path.is_file()
    }


def measure_jobs(
    folder: Path, size: int, repeat: int, jobs: Sequence[int], timeout: float
) -> dict[str, Any]:
    transcript, turns = generate("crd3", folder, size, SEED)
    config = folder / "streamer.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    (folder / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
    output = folder / "out"
    warm(transcript)
    runs: dict[int, list[Child]] = {n: [] for n in jobs}
    stages: dict[int, dict[str, list[float]]] = {n: {s: [] for s in STAGES} for n in jobs}
    mains: dict[int, list[float]] = {n: [] for n in jobs}  # the main process's own CPU
    loads: list[float] = []
    reference: dict[str, str] | None = None
    identical = True
    for _ in range(repeat):
        for n in jobs:
            for path in (output, output.with_name("out.work")):
                shutil.rmtree(path, ignore_errors=True)
            output.with_name("out.html").unlink(missing_ok=True)
            split = folder / "split.json"
            command = [sys.executable, "-m", "benchmarks.split_cpu", str(split), "run"]
            command += ["--config", str(config), str(transcript), "--format", "crd3"]
            command += ["--output", str(output), "--document-id", DOCUMENT_ID]
            command += ["--quiet", "--json", "--jobs", str(n)]
            answer = folder / "receipt.json"
            run = measure(command, stdout=answer, timeout=timeout)
            if run.status != 0:
                raise SystemExit(f"jobs_bench: --jobs {n} failed ({run.status}): {run.stderr}")
            runs[n].append(run)
            cpu = json.loads(split.read_text(encoding="utf-8"))
            mains[n].append(cpu["main"])
            loads.append(os.getloadavg()[0])
            for stage in json.loads(answer.read_text(encoding="utf-8"))["stages"]:
                stages[n][stage["stage"]].append(stage["seconds"])
            digests = _digests(output)
            reference = reference or digests
            identical = identical and digests == reference
    validate = measure([sys.executable, "-m", "streamer", "validate", str(output)], timeout=timeout)
    first = statistics.median(child.wall for child in runs[jobs[0]])
    return {
        "transcript_bytes": transcript.stat().st_size,
        "turns": turns,
        "repeat": repeat,
        "load_average": loads,
        "runs": {
            str(n): {
                "wall": statistics.median(child.wall for child in runs[n]),
                "cpu": statistics.median(child.cpu for child in runs[n]),
                "peak_rss": max(child.peak_rss for child in runs[n]),
                "wall_runs": [round(child.wall, 2) for child in runs[n]],
                "cpu_runs": [round(child.cpu, 2) for child in runs[n]],
                "main_cpu": statistics.median(mains[n]),
                "main_cpu_runs": [round(cpu, 2) for cpu in mains[n]],
                "main_cpu_ratio": statistics.median(mains[n]) / statistics.median(mains[jobs[0]]),
                "wall_ratio": statistics.median(child.wall for child in runs[n]) / first,
                "stages": {name: statistics.median(s) for name, s in stages[n].items()},
            }
            for n in jobs
        },
        "checks": {
            "every --jobs publishes the same bytes": identical,
            "bundle valid (streamer validate)": validate.status == 0,
        },
    }


def table(result: dict[str, Any]) -> str:
    runs = result["runs"]
    first, checks = heading(result)
    lines = [
        first,
        "",
        "| `streamer run` | wall s | CPU s | wall / first | main process CPU s "
        "| main CPU / first | peak RSS MiB | wall s of each run | CPU s of each run "
        "| main CPU s of each run |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
        *(
            f"| `--jobs {n}` | {r['wall']:.2f} | {r['cpu']:.2f} | {r['wall_ratio']:.2f}x "
            f"| {r['main_cpu']:.2f} | {r['main_cpu_ratio']:.2f}x "
            f"| {r['peak_rss'] / MiB:.0f} | {' '.join(map(str, r['wall_runs']))} "
            f"| {' '.join(map(str, r['cpu_runs']))} | {' '.join(map(str, r['main_cpu_runs']))} |"
            for n, r in runs.items()
        ),
        "",
        "| stage (wall s, medians) | " + " | ".join(f"`--jobs {n}`" for n in runs) + " |",
        "| --- | " + " | ".join("---:" for _ in runs) + " |",
        *(
            f"| {stage} | " + " | ".join(f"{r['stages'][stage]:.2f}" for r in runs.values()) + " |"
            for stage in STAGES
        ),
        "",
        f"Checked: {checks}.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jobs_bench", description=__doc__)
    add_arguments(parser)
    parser.add_argument("--jobs", default="1,2", help="the --jobs compared (default 1,2)")
    args = parser.parse_args(argv)
    jobs = [int(n) for n in args.jobs.split(",")]
    with tempfile.TemporaryDirectory(prefix="streamer-jobs-bench-") as temporary:
        folder = data_folder(args, temporary)
        result = measure_jobs(folder, parse_size(args.size), args.repeat, jobs, args.timeout)
    return print_result(table(result), result, args.json)


if __name__ == "__main__":
    sys.exit(main())

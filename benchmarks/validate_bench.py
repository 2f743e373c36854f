"""``streamer validate`` against ``streamer bundle`` on the same bundle: wall time, CPU time
and peak RSS, and their ratios.

    python -m benchmarks.validate_bench                      # 100 MB transcript, 30% cited
    python -m benchmarks.validate_bench --size 10MB --repeat 1
    python -m benchmarks.validate_bench --json results.json  # the numbers, raw

It generates a data set (``benchmarks.generate``, JSON Lines only) with a large cited
share, so that the evidence document is large (about 45 MB at 100 MB and 30%), then runs
``bundle`` and ``validate`` alternately ``--repeat`` times, each spawned by
``benchmarks.launch`` (exact peak RSS, see its docstring). Reported: the median wall time,
the median CPU time and the highest peak RSS of each, and their ratios. Standalone: it
shares only ``generate`` and ``launch`` with the rest of ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.generate import generate, parse_size

MIB = 1 << 20


def launch(command: list[str], report: Path) -> dict[str, Any]:
    """Run ``command`` under ``benchmarks.launch``; its status, wall, CPU and peak RSS."""
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "benchmarks.launch", str(report), *command],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    result: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return result


def measure(root: Path, size: int, share: float, repeat: int) -> dict[str, Any]:
    data = generate(root / "data", size, forms=("jsonl",), share=share)
    streamer = [sys.executable, "-m", "streamer"]
    runs: dict[str, list[dict[str, Any]]] = {"bundle": [], "validate": []}
    bundle = root / "bundle"
    for attempt in range(repeat):
        shutil.rmtree(bundle, ignore_errors=True)
        command = [
            *streamer,
            "bundle",
            "--config",
            str(data.config),
            "--source",
            str(data.source("jsonl")),
            "--lanes-dir",
            str(data.lanes_dir),
            "--output",
            str(bundle),
        ]
        runs["bundle"].append(launch(command, root / f"bundle-{attempt}.json"))
        runs["validate"].append(
            launch([*streamer, "validate", str(bundle)], root / f"validate-{attempt}.json")
        )
    for name, results in runs.items():
        failed = [result["status"] for result in results if result["status"] != 0]
        if failed:
            raise SystemExit(f"validate_bench: {name} exited with {failed[0]}")
    evidence = bundle / "evidence-context.json"
    middle = {
        name: {
            "wall": statistics.median(result["wall"] for result in results),
            "cpu": statistics.median(result["cpu"] for result in results),
            "peak_rss": max(result["peak_rss"] for result in results),
        }
        for name, results in runs.items()
    }
    return {
        "transcript_bytes": data.sizes["jsonl"],
        "units": data.units,
        "cited_units": data.cited_units,
        "evidence_bytes": evidence.stat().st_size,
        "repeat": repeat,
        "bundle": middle["bundle"],
        "validate": middle["validate"],
        "wall_ratio": middle["validate"]["wall"] / middle["bundle"]["wall"],
        "cpu_ratio": middle["validate"]["cpu"] / middle["bundle"]["cpu"],
        "runs": runs,
    }


def table(result: dict[str, Any]) -> str:
    lines = [
        f"transcript {result['transcript_bytes'] / 10**6:.1f} MB, {result['units']:,} units, "
        f"evidence document {result['evidence_bytes'] / 10**6:.1f} MB "
        f"(medians of {result['repeat']} alternated runs)",
        "",
        "| command | wall (s) | CPU (s) | peak RSS (MiB) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in ("bundle", "validate"):
        row = result[name]
        lines.append(
            f"| {name} | {row['wall']:.2f} | {row['cpu']:.2f} | {row['peak_rss'] / MIB:.1f} |"
        )
    lines += [
        "",
        f"validate / bundle: wall {result['wall_ratio']:.2f}x, CPU {result['cpu_ratio']:.2f}x; "
        f"validate's peak RSS {result['validate']['peak_rss'] / MIB:.0f} MiB. Checked: both "
        "exited 0 and validate found the bundle valid.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.validate_bench", description=__doc__
    )
    parser.add_argument("--size", default="100MB", help="transcript size (JSON Lines), e.g. 100MB")
    parser.add_argument("--share", type=float, default=0.3, help="share of cited units")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--work-dir", type=Path, help="where the data and bundle go (kept)")
    args = parser.parse_args(argv)
    if args.work_dir is not None:
        args.work_dir.mkdir(parents=True, exist_ok=True)
        result = measure(args.work_dir, parse_size(args.size), args.share, args.repeat)
    else:
        with tempfile.TemporaryDirectory(prefix="validate-bench-") as work:
            result = measure(Path(work), parse_size(args.size), args.share, args.repeat)
    print(table(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

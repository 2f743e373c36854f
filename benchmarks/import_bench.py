"""The import benchmark (``python -m benchmarks.import_bench``, part of ``make bench``):
``streamer import FORMAT`` against its floor, for every format.

For each format (text, srt, webvtt, whisperx, crd3) an input of ``--size`` bytes is
generated (seeded, written to disk as it is made, never held in memory) into a temporary
folder (or ``--data-dir``); then, ``--repeat`` times, alternately: the import (``python -m
streamer import FORMAT INPUT --output OUT``) and the format's floor (``python -m
benchmarks.import_floors FORMAT INPUT OUT``: the cheapest pass that parses the same input
with the same libraries and writes the same source document with its digest). Each run is
its own subprocess, spawned by ``benchmarks/launch.py`` (wall, CPU, peak RSS). Checked
beside the figures: the import's output is byte-identical to the floor's, and holds the
unit count the generator wrote. The table (markdown) gives the median wall and CPU time of
the runs, the highest peak RSS, and the ratio import / floor of each.

The CRD3 input repeats the turns of the four episodes of ``../shared/data/crd3``
(``benchmarks/profiles/crd3.py`` finds them), renumbered; without them, synthetic turns.
Not part of the test suite; on a shared machine compare the CPU ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.transcripts import FORMATS, SEED, generate


def parse_size(text: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}
    upper = text.strip().upper()
    for suffix, factor in sorted(units.items(), key=lambda item: -len(item[0])):
        if upper.endswith(suffix):
            return int(float(upper[: -len(suffix)]) * factor)
    return int(upper)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB", help="input size per format (default 100MB)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, alternated")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--data-dir", type=Path, help="keep the inputs here (default: temp)")
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args(argv)
    formats = [name for name in args.formats.split(",") if name]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        parser.error(f"unknown formats: {', '.join(unknown)}")
    size = parse_size(args.size)
    with tempfile.TemporaryDirectory(prefix="streamer-import-bench-") as temporary:
        folder = args.data_dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        rows = [run_format(name, folder, size, args) for name in formats]
    print_table(rows, args, size)
    return 0 if all(row["ok"] for row in rows) else 1


def run_format(
    format_name: str, folder: Path, size: int, args: argparse.Namespace
) -> dict[str, Any]:
    from benchmarks.measure import Child, measure, warm

    source, expected = generate(format_name, folder, size, args.seed)
    output = folder / f"output-{format_name}.jsonl"
    floor_output = folder / f"floor-{format_name}.jsonl"
    imported = format_name.split("-")[0]  # whisperx-words is whisperx
    command = [sys.executable, "-m", "streamer", "import", imported, str(source)]
    command += ["--output", str(output), "--document-id", "bench", "--quiet"]
    floor = [sys.executable, "-m", "benchmarks.import_floors", imported, str(source)]
    floor.append(str(floor_output))
    imports: list[Child] = []
    floors: list[Child] = []
    warm(source)
    for _ in range(args.repeat):
        imports.append(measure(command, timeout=args.timeout))
        floors.append(measure(floor, timeout=args.timeout))
    failed = [child for child in imports + floors if child.status != 0]
    row: dict[str, Any] = {"format": format_name, "input": source.stat().st_size, "ok": False}
    if failed:
        row["error"] = failed[0].stderr.strip().splitlines()[-1:] or ["timeout"]
        return row
    with open(output, "rb") as stream:
        units = sum(1 for _ in stream) - 1  # the header, then one line a unit
    row.update(
        output=output.stat().st_size,
        units=units,
        expected=expected,
        checked=units == expected and output.read_bytes() == floor_output.read_bytes(),
        wall=statistics.median(child.wall for child in imports),
        cpu=statistics.median(child.cpu for child in imports),
        rss=max(child.peak_rss for child in imports),
        floor_wall=statistics.median(child.wall for child in floors),
        floor_cpu=statistics.median(child.cpu for child in floors),
        floor_rss=max(child.peak_rss for child in floors),
        load=os.getloadavg()[0],
    )
    row["ratio"] = row["wall"] / row["floor_wall"]
    row["cpu_ratio"] = row["cpu"] / row["floor_cpu"]
    row["ok"] = row["checked"]
    output.unlink(missing_ok=True)
    floor_output.unlink(missing_ok=True)
    return row


def print_table(rows: list[dict[str, Any]], args: argparse.Namespace, size: int) -> None:
    from benchmarks.environment import environment

    mib = 1 << 20
    print(
        f"streamer import against its floor: {size / 1e6:.0f} MB inputs, medians of "
        f"{args.repeat} alternated runs (peak RSS: highest)"
    )
    print()
    print(
        "| format | input MB | units | import wall s | import CPU s | import peak MiB "
        "| floor wall s | floor CPU s | floor peak MiB | ratio wall | ratio CPU "
        "| same bytes as the floor | load |"
    )
    print("| --- " * 13 + "|")
    for row in rows:
        if "wall" not in row:
            print(f"| {row['format']} | {row['input'] / 1e6:.0f} | failed: {row['error']} |")
            continue
        units = f"{row['units']}" + ("" if row["units"] == row["expected"] else " (wrong!)")
        print(
            f"| {row['format']} | {row['input'] / 1e6:.0f} | {units} "
            f"| {row['wall']:.2f} | {row['cpu']:.2f} | {row['rss'] / mib:.0f} "
            f"| {row['floor_wall']:.2f} | {row['floor_cpu']:.2f} | {row['floor_rss'] / mib:.0f} "
            f"| {row['ratio']:.2f}x | {row['cpu_ratio']:.2f}x "
            f"| {'yes' if row['checked'] else 'NO'} | {row['load']:.1f} |"
        )
    print()
    for key, value in environment([]).items():
        if key != "matplotlib":
            print(f"- {key}: {value}")


if __name__ == "__main__":
    raise SystemExit(main())

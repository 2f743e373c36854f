"""``streamer run`` end to end, model-free, against the floor of one parse with digest.

    python -m benchmarks.run_bench                    # a 200 MB CRD3 transcript, 3 runs
    python -m benchmarks.run_bench --size 30MB --repeat 1

The transcript is the CRD3 input of ``benchmarks.import_bench`` (the turns of the four
episodes of ``../shared/data/crd3`` repeated in order and renumbered to ``--size``; without
them, generated turns). The configuration (written beside it) extracts the spells lane by
the built-in rules with the glossary's party as casters, chunks of 100 units, and publishes
the evidence context (window 1): no model.

``--repeat`` times, alternately: the floor (``benchmarks.import_floors crd3``: one msgspec
decode of the file, one canonical line a turn, the SHA-256 digest, the source document
written) and ``streamer run`` from an empty work folder, so that every stage runs. Each is
its own subprocess (``benchmarks.measure``: wall, CPU, peak RSS); the stages' seconds are
those of ``run``'s receipt. Reported: medians (peak RSS: the highest), and the load average.

Checked beside the figures: the source document ``run`` imported is byte-identical to the
floor's, the receipt's unit count is the floor's, and ``streamer validate`` finds the
published bundle valid.
"""

from __future__ import annotations

import argparse
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
from benchmarks.transcripts import generate

SEED = 20240611
DOCUMENT_ID = "bench"
STAGES = ("import", "extract", "normalize", "bundle", "report")
CONFIG = """\
pipeline:
  lanes:
    - {id: spells, artifact_kind: dnd/spell-casts, engine: rules}
  normalization:
    glossary: glossary.yaml
output:
  module: json
  options:
    evidence_context: {enabled: true, window_units: 1, lanes: [spells]}
"""
GLOSSARY = """\
party:
  - {player: MATT, character: Matt}
  - {player: LAURA, character: Vex'ahlia}
  - {player: LIAM, character: Vax'ildan}
  - {player: TALIESIN, character: Percy}
  - {player: MARISHA, character: Keyleth}
  - {player: SAM, character: Scanlan}
  - {player: TRAVIS, character: Grog}
  - {player: ASHLEY, character: Pike}
  - {player: ORION, character: Tiberius}
"""


def _check(child: Child, what: str) -> None:
    if child.status != 0:
        raise SystemExit(f"run_bench: {what} failed ({child.status}): {child.stderr[-400:]}")


def measure_run(folder: Path, size: int, repeat: int, timeout: float) -> dict[str, Any]:
    transcript, turns = generate("crd3", folder, size, SEED)
    config = folder / "streamer.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    (folder / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
    floor_output = folder / "floor.jsonl"
    output = folder / "out"
    work = folder / "out.work"
    floor_command = [sys.executable, "-m", "benchmarks.import_floors", "crd3"]
    floor_command += [str(transcript), str(floor_output)]
    run_command = [sys.executable, "-m", "streamer", "run", "--config", str(config)]
    run_command += [str(transcript), "--format", "crd3", "--output", str(output)]
    run_command += ["--document-id", DOCUMENT_ID, "--quiet"]
    warm(transcript)
    floors: list[Child] = []
    runs: list[Child] = []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    receipt: dict[str, Any] = {}
    loads = []
    for _ in range(repeat):
        floor = measure(floor_command, timeout=timeout)
        _check(floor, "the floor")
        floors.append(floor)
        for path in (output, work):
            shutil.rmtree(path, ignore_errors=True)
        output.with_name("out.html").unlink(missing_ok=True)
        answer = folder / "receipt.json"
        run = measure(run_command, stdout=answer, timeout=timeout)
        _check(run, "streamer run")
        runs.append(run)
        receipt = json.loads(answer.read_text(encoding="utf-8"))
        for stage in receipt["stages"]:
            stages[stage["stage"]].append(stage["seconds"])
        loads.append(os.getloadavg()[0])
    imported = work / "source.jsonl"
    same_source = imported.read_bytes() == floor_output.read_bytes()
    units = next(s["counts"]["units"] for s in receipt["stages"] if s["stage"] == "import")
    validate = measure([sys.executable, "-m", "streamer", "validate", str(output)], timeout=timeout)
    result: dict[str, Any] = {
        "transcript_bytes": transcript.stat().st_size,
        "turns": turns,
        "repeat": repeat,
        "load_average": loads,
        "floor": _summary(floors),
        "run": _summary(runs),
        "stages": {name: statistics.median(seconds) for name, seconds in stages.items()},
        "checks": {
            "source identical to the floor's": same_source,
            "units": units == turns,
            "bundle valid (streamer validate)": validate.status == 0,
        },
    }
    result["cpu_ratio"] = result["run"]["cpu"] / result["floor"]["cpu"]
    result["wall_ratio"] = result["run"]["wall"] / result["floor"]["wall"]
    return result


def _summary(children: list[Child]) -> dict[str, Any]:
    return {
        "wall": statistics.median(child.wall for child in children),
        "cpu": statistics.median(child.cpu for child in children),
        "peak_rss": max(child.peak_rss for child in children),
        "cpu_runs": [round(child.cpu, 2) for child in children],
    }


def heading(result: dict[str, Any]) -> tuple[str, str]:
    """The table's first line (the transcript, the runs, the load) and its checks."""
    checks = ", ".join(f"{name}: {'yes' if ok else 'NO'}" for name, ok in result["checks"].items())
    return (
        f"CRD3 transcript {result['transcript_bytes'] / 1e6:.0f} MB, {result['turns']:,} turns; "
        f"medians of {result['repeat']} alternated runs; load average (1 min) after each: "
        + ", ".join(f"{load:.1f}" for load in result["load_average"])
    ), checks


def table(result: dict[str, Any]) -> str:
    run, floor = result["run"], result["floor"]
    first, checks = heading(result)
    lines = [
        first,
        "",
        "| stage of `streamer run` | wall s (median) |",
        "| --- | ---: |",
        *(f"| {name} | {seconds:.2f} |" for name, seconds in result["stages"].items()),
        "",
        "| | wall s | CPU s | peak RSS MiB | CPU s of each run |",
        "| --- | ---: | ---: | ---: | --- |",
        f"| `streamer run` (whole) | {run['wall']:.2f} | {run['cpu']:.2f} "
        f"| {run['peak_rss'] / MiB:.0f} | {' '.join(map(str, run['cpu_runs']))} |",
        f"| floor (one parse, canonical lines, digest) | {floor['wall']:.2f} "
        f"| {floor['cpu']:.2f} | {floor['peak_rss'] / MiB:.0f} "
        f"| {' '.join(map(str, floor['cpu_runs']))} |",
        "",
        f"run / floor: CPU {result['cpu_ratio']:.2f}x, wall {result['wall_ratio']:.2f}x. "
        f"Checked: {checks}.",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``run_bench`` and of the benchmarks that run its transcript."""
    parser.add_argument("--size", default="200MB", help="transcript size (default 200MB)")
    parser.add_argument("--repeat", type=int, default=3, help="alternated runs of each")
    parser.add_argument("--data-dir", type=Path, help="keep the transcript here (default: temp)")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")


def data_folder(args: argparse.Namespace, temporary: str) -> Path:
    """``--data-dir``, made, else the temporary folder."""
    folder: Path = args.data_dir or Path(temporary)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_bench", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="streamer-run-bench-") as temporary:
        folder = data_folder(args, temporary)
        result = measure_run(folder, parse_size(args.size), args.repeat, args.timeout)
    return print_result(table(result), result, args.json)


if __name__ == "__main__":
    sys.exit(main())

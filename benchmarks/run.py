"""The benchmark harness (``make bench``): streamer (evidence, bundle, validate, the report)
against the floor, a naive baseline, jq, polars and DuckDB, on three data profiles.

For each profile and size, one data set is generated (``benchmarks.generate``: both forms,
the same units, lane outputs and configuration), or reused when ``--keep`` left it. For
each form, every contender (``benchmarks/contenders/``, one module each) runs in its own
subprocess on the same files with a warm page cache, measured from outside
(``benchmarks.measure``), and its output is checked beside the timing
(``benchmarks.runner``). The results go to ``RESULTS.md``, ``results.json``
(``benchmarks.report``) and ``results.png`` (``benchmarks.plot``).

This is not part of the test suite and never fails it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import contenders as registry
from benchmarks.cases import Case, Result, Settings
from benchmarks.datasets import dataset_for, describe_outputs
from benchmarks.environment import environment
from benchmarks.generate import FORMS, Dataset, parse_size
from benchmarks.measure import HERE, measure, warm
from benchmarks.plot import plot
from benchmarks.profiles import PROFILES
from benchmarks.profiles.unit_ids import DEFAULT_SEED
from benchmarks.report import table, write_json, write_markdown
from benchmarks.runner import log, run_contender

DEFAULT_SIZES = "10MB,100MB,300MB,1GB"
QUICK_SIZES = "1MB,10MB"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--sizes", help=f"comma-separated target sizes (default {DEFAULT_SIZES})")
    parser.add_argument("--forms", default="json,jsonl", help="json, jsonl or json,jsonl")
    parser.add_argument(
        "--profiles", default=",".join(PROFILES), help=f"some of {', '.join(PROFILES)}"
    )
    parser.add_argument("--contenders", help="run only these (comma-separated; default all)")
    parser.add_argument("--quick", action="store_true", help=f"smoke run: sizes {QUICK_SIZES}")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--naive-max", default="1GB", help="skip the naive baseline above this")
    parser.add_argument("--jq-max", default="1GB", help="skip jq above this (it loads it all)")
    parser.add_argument("--peers-max", default="3GB", help="skip polars and DuckDB above this")
    parser.add_argument(
        "--peers-json-max", default="1GB", help="the same for the JSON form (~9x in memory)"
    )
    parser.add_argument(
        "--floor-variants",
        choices=("all", "first"),
        default="all",
        help="try every JSON floor variant and keep the fastest (all), or only the first",
    )
    parser.add_argument(
        "--floor-variants-max",
        default=None,
        help="with --floor-variants all: every variant up to this size, the first above "
        "(e.g. 1GB: the 3 GB runs time the fastest variant found at 300 MB)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per contender; best time")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=HERE / "results",
        help="where RESULTS.md, results.json and results.png go (default benchmarks/results/, "
        "ignored by git)",
    )
    options = parser.parse_args(argv)
    if options.quick and options.sizes:
        parser.error("--quick chooses the sizes: give --quick or --sizes, not both")
    sizes_text = QUICK_SIZES if options.quick else (options.sizes or DEFAULT_SIZES)
    try:
        options.size_list = sorted(parse_size(s) for s in sizes_text.split(",") if s.strip())
        options.settings = Settings(
            repeat=options.repeat,
            timeout=options.timeout,
            naive_max=parse_size(options.naive_max),
            jq_max=parse_size(options.jq_max),
            peers_max=parse_size(options.peers_max),
            peers_json_max=parse_size(options.peers_json_max),
            floor_variants=options.floor_variants,
            floor_variants_max=(
                None
                if options.floor_variants_max is None
                else parse_size(options.floor_variants_max)
            ),
        )
    except ValueError as error:
        parser.error(str(error))
    options.form_list = _listed(parser, "--forms", options.forms, FORMS)
    options.profile_list = _listed(parser, "--profiles", options.profiles, tuple(PROFILES))
    names = tuple(c.name for c in registry.load())
    options.contender_list = _listed(parser, "--contenders", options.contenders, names)
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    return options


def _listed(
    parser: argparse.ArgumentParser, option: str, text: str | None, known: Sequence[str]
) -> list[str]:
    if text is None:
        return list(known)
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    if not chosen or set(chosen) - set(known):
        parser.error(f"{option} takes some of {', '.join(known)}")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    options = parse_args(arguments)
    contenders = [c for c in registry.load() if c.name in options.contender_list]
    options.data_dir.mkdir(parents=True, exist_ok=True)
    env = environment(contenders)
    startup = measure([sys.executable, "-m", "streamer", "--help"], timeout=60)
    baseline = measure(["true"], timeout=60)
    results: list[Result] = []
    datasets: list[tuple[Dataset, dict[str, Any]]] = []
    skipped_profiles: dict[str, str] = {}
    for profile in options.profile_list:
        absent = PROFILES[profile].missing()
        if absent:
            log(f"profile {profile} skipped: {absent}")
            skipped_profiles[profile] = absent
            continue
        for target in options.size_list:
            dataset = dataset_for(
                profile, target, options.form_list, options.seed, options.data_dir
            )
            out = dataset.root / "out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            for form in options.form_list:
                case = Case(dataset, form, out, options.settings)
                warm(case.source)
                case_results = [run_contender(c, case) for c in contenders]
                results += case_results
                for line in table(case_results)[2:]:
                    log(line)
            datasets.append((dataset, describe_outputs(out)))
            shutil.rmtree(out if options.keep else dataset.root, ignore_errors=True)
    out_dir = options.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    title = f"streamer benchmarks (solid: JSON, dashed: JSON Lines): {env['CPU']}"
    plotted = plot(out_dir / "results.png", results, [c.name for c in contenders], title)
    command = "python -m benchmarks.run" + "".join(f" {arg}" for arg in arguments)
    write_markdown(
        out_dir / "RESULTS.md",
        results=results,
        datasets=datasets,
        skipped_profiles=skipped_profiles,
        contenders=contenders,
        command=command,
        baselines=(startup, baseline),
        env=env,
        plotted=plotted,
        sizes=options.size_list,
        settings=options.settings,
    )
    write_json(
        out_dir / "results.json", results=results, datasets=datasets, command=command, env=env
    )
    print("\n".join(table(results)))
    log(f"wrote {out_dir / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The written results: ``RESULTS.md`` (tables) and ``results.json`` (the raw numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from benchmarks.cases import Result, Settings
from benchmarks.contenders import Contender
from benchmarks.environment import load_average
from benchmarks.generate import Dataset, format_size
from benchmarks.measure import Child, MiB
from benchmarks.skips import RAM_SHARE, rules_table


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _ratio(value: float | None, floor: float | None) -> float | None:
    return value / floor if value and floor else None


def table(results: Sequence[Result]) -> list[str]:
    floors = {
        (r.profile, r.size, r.form): r
        for r in results
        if r.contender == "floor" and r.state == "ok"
    }
    lines = [
        "| profile | size | form | contender | wall (s) | CPU (s) | MB/s | peak RSS (MiB) "
        "| time / floor | CPU / floor | RSS / floor | check |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        head = f"| {r.profile} | {r.size} | {r.form} | {r.contender}"
        if r.state != "ok":
            lines.append(f"{head} | {r.state} | | | | | | | {r.note} |")
            continue
        floor = floors.get((r.profile, r.size, r.form))
        rss = r.peak_rss / MiB if r.peak_rss is not None else None
        lines.append(
            f"{head} | {_number(r.wall, 2)} | {_number(r.cpu, 2)} | {_number(r.mb_per_s, 1)} "
            f"| {_number(rss, 0)} "
            f"| {_number(_ratio(r.wall, floor.wall if floor else None), 2)} "
            f"| {_number(_ratio(r.cpu, floor.cpu if floor else None), 2)} "
            f"| {_number(_ratio(r.peak_rss, floor.peak_rss if floor else None), 2)} "
            f"| {r.check}{f' ({r.variant})' if r.variant else ''} |"
        )
    return lines


JOBS_TARGET = 0.75  # --jobs 2 at most this share of --jobs 1's wall time (issue 24)


def jobs_table(results: Sequence[Result]) -> list[str]:
    """``--jobs 2`` against ``--jobs 1`` (``evidence`` and ``bundle``) and ``evidence
    --jobs 2`` against polars, for each case where they ran: wall and CPU ratios, and the
    share of polars' peak memory."""
    ok = {(r.profile, r.size, r.form, r.contender): r for r in results if r.state == "ok"}
    cases = dict.fromkeys((r.profile, r.size, r.form) for r in results)
    lines = [
        "| profile | size | form | comparison | wall (s) | wall ratio | CPU ratio "
        "| peak RSS ratio | target |",
        "| --- | ---: | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    pairs = [
        ("evidence-jobs", "evidence", f"<= {JOBS_TARGET}"),
        ("bundle-jobs", "bundle", f"<= {JOBS_TARGET}"),
        ("evidence-jobs", "polars", "< 1, RSS <= 0.1"),
        ("evidence", "polars", "< 1, RSS <= 0.1"),
    ]
    for case in cases:
        for mine, theirs, target in pairs:
            a, b = ok.get((*case, mine)), ok.get((*case, theirs))
            if a is None or b is None:
                continue
            lines.append(
                f"| {' | '.join(case)} | {mine} / {theirs} "
                f"| {_number(a.wall, 2)} / {_number(b.wall, 2)} "
                f"| {_number(_ratio(a.wall, b.wall), 2)} | {_number(_ratio(a.cpu, b.cpu), 2)} "
                f"| {_number(_ratio(a.peak_rss, b.peak_rss), 3)} | {target} |"
            )
    return lines if len(lines) > 2 else []


def variants_table(results: Sequence[Result]) -> list[str]:
    lines = [
        "| profile | size | form | contender | variant | wall (s) | CPU (s) | peak RSS (MiB) "
        "| check |",
        "| --- | ---: | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        for v in r.variants:
            kept = " (kept)" if v["variant"] == r.variant and r.state == "ok" else ""
            rss = v["peak_rss"] / MiB if v["peak_rss"] else None
            lines.append(
                f"| {r.profile} | {r.size} | {r.form} | {r.contender} | {v['variant']}{kept} "
                f"| {_number(v['wall'], 2)} | {_number(v['cpu'], 2)} | {_number(rss, 0)} "
                f"| {v['check'] or v['state'] + ' ' + v['note']} |"
            )
    return lines if len(lines) > 2 else []


def datasets_table(datasets: Sequence[tuple[Dataset, dict[str, Any]]]) -> list[str]:
    lines = [
        "| profile | size | units | JSON bytes | JSON Lines bytes | references | cited units "
        "| contexts | published units | output bytes | json = jsonl output | generated in (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for dataset, info in datasets:
        same = info.get("forms_identical")
        lines.append(
            f"| {dataset.profile} | {format_size(dataset.target_bytes)} | {dataset.units} "
            f"| {dataset.sizes.get('json', '')} | {dataset.sizes.get('jsonl', '')} "
            f"| {dataset.references} | {dataset.cited_units} | {info.get('contexts', '')} "
            f"| {info.get('published_units', '')} | {info.get('output_bytes', '')} "
            f"| {'' if same is None else ('identical' if same else 'DIFFER')} "
            f"| {dataset.generate_seconds:.1f} |"
        )
    return lines


def write_markdown(
    path: Path,
    *,
    results: Sequence[Result],
    datasets: Sequence[tuple[Dataset, dict[str, Any]]],
    skipped_profiles: dict[str, str],
    contenders: Sequence[Contender],
    command: str,
    baselines: tuple[Child, Child],
    env: dict[str, str],
    plotted: bool,
    sizes: Sequence[int] = (),
    settings: Settings | None = None,
) -> None:
    lines = [
        "# Benchmark results",
        "",
        "Generated by `benchmarks/run.py` (see `benchmarks/README.md` for what each contender "
        "measures and how to read this). Every contender ran in its own subprocess on the "
        "same files with a warm page cache; wall time is measured around the child, peak RSS "
        "is the child's own `ru_maxrss`. MB are 10^6 bytes; RSS is in MiB.",
        "",
        "## Machine and versions",
        "",
    ]
    lines += [f"- {name}: {value}" for name, value in env.items()]
    lines += [f"- load average at the end (1, 5, 15 min): {load_average()}"]
    lines += ["", "## Command", "", "```", command, "```", "", "## Contenders", ""]
    lines += [f"- `{c.name}`: {c.summary}" for c in contenders]
    lines += ["", "## Results", "", *table(results)]
    jobs = jobs_table(results)
    if jobs:
        lines += ["", "## Both cores: `--jobs 2` against `--jobs 1`, and against polars", "", *jobs]
    variants = variants_table(results)
    if variants:
        lines += ["", "## Floor variants (the fastest right one is the floor)", "", *variants]
    lines += ["", "## Data sets", "", *datasets_table(datasets)]
    if settings is not None and sizes:
        lines += [
            "",
            "## Skip rules (so that the large sizes never swap the machine)",
            "",
            "The contenders that hold the whole input in memory are skipped above a size "
            "(the option) and whenever their estimated peak (the factor, measured) would "
            f"exceed {RAM_SHARE:.0%} of the machine's RAM; a skipped row says which rule.",
            "",
            *rules_table(settings, list(sizes)),
        ]
    for profile, why in skipped_profiles.items():
        lines += ["", f"Profile `{profile}` skipped: {why}."]
    startup, baseline = baselines
    lines += [
        "",
        f"Start-up cost, for reading the small sizes: `python -m streamer --help` takes "
        f"{startup.wall:.2f} s and peaks at {startup.peak_rss / MiB:.0f} MiB. The smallest "
        f"peak RSS this harness can report is the launcher's own, {baseline.peak_rss / MiB:.0f} "
        "MiB (measured on `true`).",
    ]
    if plotted:
        lines += ["", "## Plot", "", "![time and peak memory against input size](results.png)"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_json(
    path: Path,
    *,
    results: Sequence[Result],
    datasets: Sequence[tuple[Dataset, dict[str, Any]]],
    command: str,
    env: dict[str, str],
) -> None:
    raw = {
        "command": command,
        "environment": env,
        "results": [{**asdict(r), "mb_per_s": r.mb_per_s} for r in results],
        "datasets": [{**d.to_json(), **info} for d, info in datasets],
    }
    path.write_bytes(orjson.dumps(raw, option=orjson.OPT_INDENT_2))

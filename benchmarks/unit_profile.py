"""Where each microsecond per unit goes: ``streamer evidence`` under cProfile, in a child.

``python -m benchmarks.unit_profile --source FILE --config F --lanes-dir D`` runs
``python -m cProfile -m streamer evidence`` on the source in a subprocess, and the floor's
first variant (``benchmarks.contenders.floor``) the same way, then prints, in markdown, each
one's top functions by own time (cProfile's ``tottime``) divided by the number of units:
microseconds per unit, the share of the profiled total, and calls per unit, then what the
rest adds up to and the total (the rows and the rest sum to the total). Start-up and the
configuration are in these totals.

``--profile P --size S`` generates two data sets of that profile in ``--data-dir``, ``S``
and ``S / 10`` (whose units are the first of the larger one's, and whose references are as
many), and prints the tables of ``S`` with, under each title, the *marginal* cost of a unit:
(total on ``S`` - total on ``S / 10``) / (the difference in units), with start-up,
configuration and the fixed references cancelled out. (Function by function that
difference is mostly the noise of a shared machine, so the rows are the larger run's.)
Paste a before and an after table into a closing note.

cProfile's per-call overhead inflates the small per-unit functions (a function called once
a unit costs about 0.1 us more than it does unprofiled), so the totals are above the
unprofiled CPU time; ``benchmarks.stages`` measures the stages without it. The ranking and
the differences between two runs on the same data are what this table is for.

``make bench`` writes ``unit-profile.md`` beside ``RESULTS.md`` (each profile at 30 MB,
both forms: ``--unit-profile-size`` of ``benchmarks.run``).
"""

from __future__ import annotations

import argparse
import contextlib
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from benchmarks.generate import Dataset, format_size, parse_size

PYTHON = sys.executable
REPO = Path(__file__).resolve().parent.parent
TOP = 15
SMALL = 10  # the marginal profile: SIZE minus SIZE / SMALL


@dataclass(frozen=True)
class Row:
    function: str
    seconds: float  # own time (tottime)
    calls: int


@dataclass(frozen=True)
class Profile:
    title: str
    units: int
    rows: list[Row]  # every function, by own time, highest first
    wall: float  # of the profiled child
    note: str = ""  # a line under the title

    @property
    def total(self) -> float:
        return sum(row.seconds for row in self.rows)

    def per_unit_beyond(self, smaller: Profile) -> float | None:
        """The marginal cost of a unit in seconds: what this run's units beyond
        ``smaller``'s cost (start-up, configuration and the fixed references cancel)."""
        extra = self.units - smaller.units
        return (self.total - smaller.total) / extra if extra > 0 else None


def _where(path: str, line: int, name: str) -> str:
    if path == "~":  # a built-in: cProfile names it in braces
        return name.strip("{}")
    for marker in ("site-packages/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    else:
        with contextlib.suppress(ValueError):
            path = str(Path(path).resolve().relative_to(REPO))
    return f"{path}:{line}({name})"


def profiled(command: Sequence[str], units: int | None, title: str, out: Path) -> Profile:
    """Run ``python -m cProfile -o OUT -m COMMAND...`` and read its statistics; the unit
    count from ``units``, or from the child's standard output (the floor prints it)."""
    stats_path = out / "profile.pstats"
    argv = [PYTHON, "-m", "cProfile", "-o", str(stats_path), "-m", *command]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        last = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise SystemExit(f"unit_profile: {command[0]} failed (exit {done.returncode}): {last[0]}")
    if units is None:
        units = int(orjson.loads(done.stdout)["units"])
    stats = pstats.Stats(str(stats_path))
    raw = stats.stats  # type: ignore[attr-defined]
    rows = [
        Row(_where(*key), tottime, calls)
        for key, (_, calls, tottime, _, _) in raw.items()
        if tottime > 0
    ]
    rows.sort(key=lambda row: (-row.seconds, row.function))
    return Profile(title, units, rows, wall)


def table(profile: Profile, top: int = TOP) -> list[str]:
    """The markdown table: the ``top`` functions, the rest, the total (us per unit)."""
    per_unit = 1e6 / profile.units if profile.units else 0.0
    total = profile.total
    lines = [
        f"### {profile.title}",
        "",
        f"{profile.units} units; profiled total {total:.3f} s "
        f"({total * per_unit:.2f} us a unit), the child's wall time under cProfile "
        f"{profile.wall:.2f} s.",
        *([profile.note] if profile.note else []),
        "",
        "| function (own time) | us / unit | share | calls / unit |",
        "| --- | ---: | ---: | ---: |",
    ]
    shown = profile.rows[:top]
    rest = profile.rows[top:]
    for row in shown:
        lines.append(
            f"| `{row.function}` | {row.seconds * per_unit:.3f} "
            f"| {row.seconds / total:.1%} | {row.calls / profile.units:.3g} |"
        )
    rest_seconds = sum(row.seconds for row in rest)
    lines.append(
        f"| the other {len(rest)} functions | {rest_seconds * per_unit:.3f} "
        f"| {rest_seconds / total if total else 0:.1%} | |"
    )
    lines.append(f"| **total** | **{total * per_unit:.3f}** | 100% | |")
    return lines


def profile_case(
    source: Path, config: Path, lanes_dir: Path, form: str, label: str, work: Path
) -> list[Profile]:
    """``streamer evidence`` and the floor on one source, each profiled."""
    floor = profiled(
        ["benchmarks.contenders.floor", "--form", form, str(source)],
        None,
        f"{label}: the floor (its first variant)",
        work,
    )
    output = work / "evidence.json"
    evidence = profiled(
        [
            "streamer",
            "evidence",
            "--config",
            str(config),
            "--lanes-dir",
            str(lanes_dir),
            "--source",
            str(source),
            "--output",
            str(output),
        ],
        floor.units,
        f"{label}: `streamer evidence`",
        work,
    )
    return [evidence, floor]


def profile_dataset(
    dataset: Dataset, small: Dataset, forms: Sequence[str], work: Path
) -> list[Profile]:
    """``evidence`` and the floor on ``dataset``, each form, with the marginal cost of a
    unit from the same runs on ``small`` (the same profile, smaller: its units are the
    first of ``dataset``'s, its references as many)."""
    found: list[Profile] = []
    for form in forms:
        label = f"{dataset.profile} {format_size(dataset.target_bytes)} {form}"
        big = profile_case(
            dataset.source(form), dataset.config, dataset.lanes_dir, form, label, work
        )
        less = profile_case(small.source(form), small.config, small.lanes_dir, form, "", work)
        for mine, theirs in zip(big, less, strict=True):
            marginal = mine.per_unit_beyond(theirs)
            note = (
                f"The same on {format_size(small.target_bytes)} ({theirs.units} units) totals "
                f"{theirs.total:.3f} s: start-up, configuration and the references "
                f"cancel, and the marginal cost of a unit is "
                + (f"**{marginal * 1e6:.2f} us**." if marginal is not None else "unknown.")
            )
            found.append(replace(mine, note=note))
    return found


def markdown(profiles: Sequence[Profile], command: str) -> str:
    lines = [
        "# Where each microsecond per unit goes",
        "",
        "Generated by `benchmarks/unit_profile.py` (its docstring says how to read this): "
        "own time per function (cProfile `tottime`) / units, under cProfile, in a child.",
        "",
        "```",
        command,
        "```",
    ]
    for profile in profiles:
        lines += ["", *table(profile)]
    return "\n".join(lines) + "\n"


def write_unit_profiles(
    path: Path, profiles: Sequence[str], size: int, seed: int, data_dir: Path, command: str
) -> None:
    """``make bench``'s part: each profile at ``size``, both forms, into ``path``."""
    from benchmarks.generate import FORMS
    from benchmarks.profiles import PROFILES

    found: list[Profile] = []
    with tempfile.TemporaryDirectory(dir=data_dir, prefix="unit-profile-") as temp:
        for name in profiles:
            if PROFILES[name].missing():
                continue
            dataset = _generated(name, size, seed, Path(temp) / name)
            small = _generated(name, size // SMALL, seed, Path(temp) / f"{name}-small")
            found += profile_dataset(dataset, small, FORMS, Path(temp))
    path.write_text(markdown(found, command), encoding="utf-8")


def _generated(profile: str, size: int, seed: int, root: Path) -> Dataset:
    from benchmarks.generate import generate

    return generate(root, size, profile=profile, seed=seed)


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.profiles import PROFILES
    from benchmarks.profiles.unit_ids import DEFAULT_SEED

    parser = argparse.ArgumentParser(prog="python -m benchmarks.unit_profile", description=__doc__)
    parser.add_argument("--source", type=Path, help="a source document (JSON or JSON Lines)")
    parser.add_argument("--config", type=Path, help="its streamer.yaml (with --source)")
    parser.add_argument("--lanes-dir", type=Path, help="its lane outputs (with --source)")
    parser.add_argument("--profile", choices=list(PROFILES), help="generate a data set")
    parser.add_argument("--size", default="30MB", help="its size (with --profile)")
    parser.add_argument("--forms", default="jsonl,json", help="with --profile")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--top", type=int, default=TOP, help="functions shown per table")
    parser.add_argument("--output", type=Path, help="write the markdown here (default stdout)")
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else list(argv)
    command = "python -m benchmarks.unit_profile " + " ".join(given)
    if (args.source is None) == (args.profile is None):
        parser.error("give --source (with --config and --lanes-dir) or --profile")
    args.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.data_dir, prefix="unit-profile-") as temp:
        work = Path(temp)
        if args.source is not None:
            if args.config is None or args.lanes_dir is None:
                parser.error("--source needs --config and --lanes-dir")
            form = "jsonl" if args.source.suffix == ".jsonl" else "json"
            found = profile_case(
                args.source, args.config, args.lanes_dir, form, str(args.source), work
            )
        else:
            forms = [f.strip() for f in args.forms.split(",") if f.strip()]
            if not forms or set(forms) - {"json", "jsonl"}:
                parser.error("--forms takes json, jsonl or both")
            try:
                size = parse_size(args.size)
            except ValueError as error:
                parser.error(str(error))
            dataset = _generated(args.profile, size, args.seed, work / "data")
            small = _generated(args.profile, size // SMALL, args.seed, work / "small")
            found = profile_dataset(dataset, small, forms, work)
        text = "\n".join(
            [
                "# Where each microsecond per unit goes",
                "",
                "```",
                command,
                "```",
                *(line for p in found for line in ("", *table(p, args.top))),
            ]
        )
        text += "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start-up: ``streamer --version`` and a model-free ``streamer run`` of a four-hour episode,
the code of a base revision against the code of this checkout.

    nice -n 10 python -m benchmarks.startup_bench                 # base: main, 11 runs
    nice -n 10 python -m benchmarks.startup_bench --base 308cac1 --repeat 7 --source

Both codes are copied into a temporary folder (the base's with ``git archive``, this
checkout's ``streamer/`` as it is on disk) and run by the venv's ``streamer`` script with
``PYTHONPATH`` naming the copy, so they share the interpreter, the installed packages and
the entry points. Both copies are compiled first (``compileall``), as an install is and
as ``make bench`` compiles the checkout; with ``--source``, they are not, and
``PYTHONDONTWRITEBYTECODE=1`` keeps them so: every start compiles streamer's modules, as
an editable checkout does where that variable is set (this machine's shells). Each round
runs the four contenders (base and head, ``--version`` and the run) in alternated order;
each run is its own process, spawned by ``benchmarks/launch.py`` (wall and CPU time, user
+ system). The run publishes ``--episode`` (default
``../shared/data/crd3/episodes/C2E010.json``, 2,674 units) into a fresh folder each time,
with no configuration, so every stage runs; checked: every run exits 0, and base and head
publish byte-identical files (bundle and report). The table gives the medians of the runs
(wall and CPU) and the load average before and after.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.measure import REPO, Child, measure

EPISODE = REPO.parent / "shared" / "data" / "crd3" / "episodes" / "C2E010.json"
SCRIPT = Path(sys.executable).parent / "streamer"


@dataclass
class Contender:
    """One code (``base`` or ``head``) and one command (``version`` or ``run``)."""

    code: str
    command: str
    runs: list[Child] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.code} {self.command}"


def copy_codes(base: str, folder: Path) -> dict[str, Path]:
    """The package of revision ``base`` and this checkout's, each in a folder of its own."""
    codes = {"base": folder / "base", "head": folder / "head"}
    codes["base"].mkdir()
    archive = subprocess.run(
        ["git", "archive", base, "streamer"], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(codes["base"])], input=archive, check=True)
    ignored = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "streamer", codes["head"] / "streamer", ignore=ignored)
    return codes


def environment(code: Path) -> dict[str, str]:
    variables = dict(os.environ, PYTHONPATH=str(code), PYTHONDONTWRITEBYTECODE="1")
    variables.pop("PYTHONPYCACHEPREFIX", None)
    return variables


def command_line(contender: Contender, episode: Path, output: Path) -> list[str]:
    if contender.command == "version":
        return [str(SCRIPT), "--version"]
    return [str(SCRIPT), "run", str(episode), "--output", str(output), "--force"]


def published(output: Path) -> dict[str, str]:
    """The digest of every file a run published (its bundle folder and its report)."""
    files = [path for path in sorted(output.rglob("*")) if path.is_file()]
    files.append(output.with_suffix(".html"))
    return {
        str(path.relative_to(output.parent)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in files
    }


def run_once(
    contender: Contender, code: Path, episode: Path, folder: Path, timeout: float
) -> dict[str, str]:
    """Run ``contender`` once; the digests of what it published (a run), else nothing."""
    output = folder / "out" / "session"
    shutil.rmtree(output.parent, ignore_errors=True)
    output.parent.mkdir()
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment(code))
    try:
        child = measure(command_line(contender, episode, output), timeout=timeout)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if child.status != 0:
        raise SystemExit(f"{contender.label} failed ({child.status}): {child.stderr[-500:]}")
    contender.runs.append(child)
    return published(output) if contender.command == "run" else {}


def load() -> str:
    return " ".join(f"{figure:.2f}" for figure in os.getloadavg())


def bench(args: argparse.Namespace, folder: Path) -> list[Contender]:
    codes = copy_codes(args.base, folder)
    if not args.source:
        for code in codes.values():
            compileall.compile_dir(code / "streamer", quiet=1)
    contenders = [Contender(code, command) for command in ("version", "run") for code in codes]
    digests: dict[str, dict[str, str]] = {}
    for round_number in range(args.repeat):
        order = contenders if round_number % 2 == 0 else contenders[::-1]
        for contender in order:
            found = run_once(contender, codes[contender.code], args.episode, folder, args.timeout)
            if found:
                digests.setdefault(contender.code, found)
    if digests["base"] != digests["head"]:
        differ = sorted(set(digests["base"].items()) ^ set(digests["head"].items()))
        raise SystemExit(f"base and head published different files: {differ}")
    return contenders


def print_table(contenders: Sequence[Contender], args: argparse.Namespace, loads: str) -> None:
    mode = "source (PYTHONDONTWRITEBYTECODE=1)" if args.source else "bytecode (compileall)"
    print(f"## Start-up: base {args.base} against head, {mode}, {args.repeat} runs each\n")
    print(f"Episode {args.episode.name}; load average (1, 5, 15 min) {loads}.\n")
    print("| contender | wall s (median) | CPU s (median) | wall s (min-max) |")
    print("| --- | ---: | ---: | ---: |")
    for contender in contenders:
        walls = [child.wall for child in contender.runs]
        cpus = [child.cpu for child in contender.runs]
        spread = f"{min(walls):.3f}-{max(walls):.3f}"
        print(
            f"| {contender.label} | {statistics.median(walls):.3f} | "
            f"{statistics.median(cpus):.3f} | {spread} |"
        )
    print("\nChecked: every run exited 0; base and head published byte-identical files.")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="the revision to compare against")
    parser.add_argument("--repeat", type=int, default=11, help="runs of each, alternated")
    parser.add_argument("--episode", type=Path, default=EPISODE, help="the transcript run")
    parser.add_argument("--source", action="store_true", help="compile at every start")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args(argv)
    if not args.episode.is_file():
        parser.error(f"no episode at {args.episode} (see ../shared/README.md)")
    before = load()
    with tempfile.TemporaryDirectory(prefix="streamer-startup-bench-") as temporary:
        contenders = bench(args, Path(temporary))
    print_table(contenders, args, f"{before} before, {load()} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark harness (``make bench``): streamer against the floor, a naive baseline and jq.

For each size, one data set is generated (``benchmarks.generate``: both forms, the same
units, lane outputs and configuration), or reused when ``--keep`` left it. For each form,
every contender runs in its own subprocess, on the same files, with a warm page cache,
measured from outside: wall time around the child, peak RSS from the child's own rusage
(``os.wait4``). Beside every timing is a correctness check of what the contender
produced. The results go to ``RESULTS.md``, ``results.json`` and ``results.png``.

Contenders (see ``benchmarks/README.md``): ``floor``, ``evidence`` (file source),
``evidence-stdin`` (``--source -``), ``bundle`` (only when ``streamer bundle --help``
succeeds), ``naive`` and ``jq``.

This is not part of the test suite and never fails it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from benchmarks.generate import (
    DEFAULT_SEED,
    FORMS,
    Dataset,
    format_size,
    generate,
    parse_size,
)

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE / "launch.py"
REPO = HERE.parent
DEFAULT_SIZES = "10MB,100MB,300MB,1GB"
QUICK_SIZES = "1MB,10MB"
CONTENDERS = ("floor", "evidence", "evidence-stdin", "bundle", "naive", "jq")
MiB = 1 << 20

# jq: the units covered by the expanded, merged references, in document order (the
# selection at the heart of the evidence document; not the document itself).
JQ_COVERED = """
def covered($units; $refs; $w):
  ($units | length) as $n
  | (reduce range(0; $n) as $i ({}; .[$units[$i].unit_id] = $i)) as $pos
  | [$refs[] | [([$pos[.[0]] - $w, 0] | max), ([$pos[.[1]] + $w, $n - 1] | min)]]
  | sort
  | reduce .[] as $r ([]; if length > 0 and $r[0] <= .[-1][1] + 1
                          then .[-1][1] = ([.[-1][1], $r[1]] | max) else . + [$r] end)
  | .[] | $units[.[0]:.[1] + 1][];
"""
JQ_MAIN = {
    "json": "covered(input.units; $refs[0]; $w)",
    "jsonl": "input as $header | covered([inputs]; $refs[0]; $w)",
}


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


# -- measuring one child --------------------------------------------------------------


@dataclass
class Child:
    status: int | None  # exit status; None when killed at the timeout
    wall: float
    peak_rss: int  # bytes
    stderr: str
    cpu: float = 0.0  # user + system seconds


def measure(
    command: Sequence[str],
    *,
    stdin: Path | None = None,
    stdout: Path | None = None,
    timeout: float,
) -> Child:
    """Run ``command`` once through the launcher (``benchmarks/launch.py``), which spawns
    it, times it and reads its own rusage: the harness's size never leaks into it."""
    with contextlib.ExitStack() as stack:
        stdin_file: IO[bytes] | int = (
            stack.enter_context(open(stdin, "rb")) if stdin else subprocess.DEVNULL
        )
        stdout_file: IO[bytes] | int = (
            stack.enter_context(open(stdout, "wb")) if stdout else subprocess.DEVNULL
        )
        stderr_file = stack.enter_context(tempfile.TemporaryFile())
        report = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "report.json"
        began = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-S", str(LAUNCHER), str(report), *command],
            stdin=stdin_file,
            stdout=stdout_file,
            stderr=stderr_file,
            cwd=REPO,
            start_new_session=True,  # a process group: the timeout ends the child too
        )
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return Child(None, time.perf_counter() - began, 0, "")
        stderr_file.seek(0)
        error_text = stderr_file.read().decode("utf-8", "replace")
        if process.returncode != 0 or not report.exists():
            return Child(process.returncode or 1, 0.0, 0, error_text + "(launcher failed)")
        reported = orjson.loads(report.read_bytes())
    return Child(
        reported["status"], reported["wall"], reported["peak_rss"], error_text, reported["cpu"]
    )


def warm(path: Path) -> None:
    """Read ``path`` once so that every contender starts with it in the page cache."""
    with open(path, "rb", buffering=0) as stream:
        while stream.read(16 * MiB):
            pass


# -- results --------------------------------------------------------------------------


@dataclass
class Result:
    size: str
    form: str
    contender: str
    input_bytes: int
    state: str  # ok, failed, timeout, skipped
    wall: float | None = None
    cpu: float | None = None
    peak_rss: int | None = None
    check: str = ""
    note: str = ""

    @property
    def mb_per_s(self) -> float | None:
        if not self.wall:
            return None
        return self.input_bytes / 1e6 / self.wall


@dataclass
class Case:
    """One size and form: the data set and where the outputs go."""

    dataset: Dataset
    form: str
    out: Path

    @property
    def source(self) -> Path:
        return self.dataset.source(self.form)

    @property
    def evidence_args(self) -> list[str]:
        return ["--config", str(self.dataset.config), "--lanes-dir", str(self.dataset.lanes_dir)]


def run_best(
    name: str, case: Case, command: Sequence[str], repeat: int, timeout: float, **streams: Any
) -> tuple[Result, Child | None]:
    """Run ``repeat`` times: the best wall time, the highest peak RSS."""
    size = format_size(case.dataset.target_bytes)
    bytes_ = case.source.stat().st_size
    best: Child | None = None
    peak = 0
    for _ in range(repeat):
        child = measure(command, timeout=timeout, **streams)
        if child.status is None:
            return Result(size, case.form, name, bytes_, "timeout", note=f"> {timeout:g} s"), None
        if child.status != 0:
            last = child.stderr.strip().splitlines()[-1:] or [""]
            note = f"exit {child.status}: {last[0][:160]}"
            return Result(size, case.form, name, bytes_, "failed", note=note), child
        peak = max(peak, child.peak_rss)
        if best is None or child.wall < best.wall:
            best = child
    assert best is not None
    return Result(size, case.form, name, bytes_, "ok", best.wall, best.cpu, peak), best


def skipped(case: Case, name: str, why: str) -> Result:
    size = format_size(case.dataset.target_bytes)
    return Result(size, case.form, name, case.source.stat().st_size, "skipped", note=why)


# -- the contenders -------------------------------------------------------------------


def bundle_help() -> str | None:
    """The help of ``streamer bundle`` when this checkout has the command (exit status 0)."""
    probe = subprocess.run(
        [sys.executable, "-m", "streamer", "bundle", "--help"],
        capture_output=True,
        cwd=REPO,
        check=False,
    )
    if probe.returncode != 0:
        return None
    return probe.stdout.decode("utf-8", "replace")


def bundle_args(help_text: str, case: Case, destination: Path) -> list[str] | None:
    options = set(help_text.replace(",", " ").replace("=", " ").split())
    args = ["bundle"]
    for name, value in (
        ("--config", case.dataset.config),
        ("--source", case.source),
        ("--lanes-dir", case.dataset.lanes_dir),
    ):
        if name not in options:
            return None
        args += [name, str(value)]
    for name in ("--output", "--output-dir", "--out", "--bundle-dir", "--dest"):
        if name in options:
            return [*args, name, str(destination)]
    return None


def check_same(path: Path, reference: Path | None, what: str) -> str:
    if reference is None or not reference.exists():
        return "no reference"
    if path.stat().st_size == reference.stat().st_size and _same_bytes(path, reference):
        return f"identical to {what}"
    return f"DIFFERS from {what}"


def _same_bytes(a: Path, b: Path) -> bool:
    with open(a, "rb") as left, open(b, "rb") as right:
        while True:
            x, y = left.read(16 * MiB), right.read(16 * MiB)
            if x != y:
                return False
            if not x:
                return True


def published_unit_ids(evidence: Path) -> list[str]:
    document = orjson.loads(evidence.read_bytes())
    return [unit["unit_id"] for context in document["contexts"] for unit in context["units"]]


def run_case(case: Case, options: argparse.Namespace, bundle_usage: str | None) -> list[Result]:
    python = sys.executable
    form, source, out = case.form, case.source, case.out
    repeat, timeout = options.repeat, options.timeout
    results: list[Result] = []
    warm(source)

    # (d) the floor
    log(f"{case.dataset.root.name} {form}: floor")
    floor_out = out / f"floor.{form}.json"
    result, child = run_best(
        "floor",
        case,
        [python, "-m", "benchmarks.floor", "--form", form, str(source)],
        repeat,
        timeout,
        stdout=floor_out,
    )
    if child is not None and result.state == "ok":
        report = orjson.loads(floor_out.read_bytes())
        good = (report["units"], report["semantic_digest"]) == (
            case.dataset.units,
            case.dataset.digest,
        )
        result.check = "digest and count right" if good else "DIGEST OR COUNT WRONG"
    results.append(result)

    # (a) streamer evidence, file source
    log(f"{case.dataset.root.name} {form}: streamer evidence")
    evidence_out = out / f"evidence.{form}.json"
    streamer = [python, "-m", "streamer", "evidence"]
    result, _ = run_best(
        "evidence",
        case,
        [*streamer, *case.evidence_args, "--source", str(source), "--output", str(evidence_out)],
        repeat,
        timeout,
    )
    reference = evidence_out if result.state == "ok" else None
    if reference is not None:
        result.check = "reference output"
    results.append(result)

    # (b) streamer evidence, the file on standard input, the document on standard output
    log(f"{case.dataset.root.name} {form}: streamer evidence --source -")
    stdin_out = out / f"evidence-stdin.{form}.json"
    result, _ = run_best(
        "evidence-stdin",
        case,
        [*streamer, *case.evidence_args, "--source", "-", "--output", "-"],
        repeat,
        timeout,
        stdin=source,
        stdout=stdin_out,
    )
    if result.state == "ok":
        result.check = check_same(stdin_out, reference, "evidence")
    results.append(result)

    # (c) streamer bundle, where this checkout has it
    if bundle_usage is None:
        results.append(skipped(case, "bundle", "no `streamer bundle` command in this checkout"))
    else:
        destination = out / f"bundle.{form}"
        args = bundle_args(bundle_usage, case, destination)
        if args is None:
            results.append(skipped(case, "bundle", "bundle options not recognized"))
        else:
            log(f"{case.dataset.root.name} {form}: streamer bundle")
            shutil.rmtree(destination, ignore_errors=True)
            result, _ = run_best("bundle", case, [python, "-m", "streamer", *args], 1, timeout)
            if result.state == "ok":
                found = sorted(destination.rglob("evidence-context.json"))
                result.check = (
                    check_same(found[0], reference, "evidence")
                    if found
                    else "no evidence-context.json"
                )
            results.append(result)

    # (e) the naive baseline
    if case.dataset.target_bytes > options.naive_max:
        results.append(skipped(case, "naive", f"input above --naive-max {options.naive_max_text}"))
    else:
        log(f"{case.dataset.root.name} {form}: naive")
        naive_out = out / f"naive.{form}.json"
        naive = [python, "-m", "benchmarks.naive", *case.evidence_args, "--source", str(source)]
        result, _ = run_best("naive", case, [*naive, "--output", str(naive_out)], repeat, timeout)
        if result.state == "ok":
            result.check = check_same(naive_out, reference, "evidence")
        results.append(result)

    # (f) jq
    jq = shutil.which("jq")
    if jq is None:
        results.append(skipped(case, "jq", "jq is not installed"))
    elif case.dataset.target_bytes > options.jq_max:
        results.append(skipped(case, "jq", f"input above --jq-max {options.jq_max_text}"))
    else:
        log(f"{case.dataset.root.name} {form}: jq")
        refs = out / "refs.json"
        if not refs.exists():
            refs.write_bytes(orjson.dumps(_flat_references(case.dataset)))
        jq_out = out / f"jq.{form}.jsonl"
        program = JQ_COVERED + JQ_MAIN[form]
        command = [jq, "-c", "-n", "--slurpfile", "refs", str(refs)]
        command += ["--argjson", "w", str(case.dataset.window), program, str(source)]
        result, _ = run_best("jq", case, command, repeat, timeout, stdout=jq_out)
        if result.state == "ok" and reference is not None:
            with open(jq_out, "rb") as lines:
                selected = [orjson.loads(line)["unit_id"] for line in lines]
            same = selected == published_unit_ids(reference)
            result.check = "same units as evidence" if same else "DIFFERENT units from evidence"
        results.append(result)
    return results


def _flat_references(dataset: Dataset) -> list[list[str]]:
    refs: list[list[str]] = []
    for path in sorted(dataset.lanes_dir.glob("*.json")):
        for record in orjson.loads(path.read_bytes())["records"]:
            refs += [[ref["start_unit_id"], ref["end_unit_id"]] for ref in record["source_refs"]]
    return refs


# -- data sets ------------------------------------------------------------------------


def dataset_for(target: int, forms: Sequence[str], seed: int, data_dir: Path) -> Dataset:
    root = data_dir / f"{format_size(target)}-seed{seed}"
    meta = root / "meta.json"
    if meta.exists():
        with contextlib.suppress(Exception):
            dataset = Dataset.load(root)
            if (
                dataset.target_bytes == target
                and set(forms) <= set(dataset.params.get("forms", ()))
                and all(dataset.source(form).exists() for form in forms)
            ):
                log(f"reusing {root}")
                return dataset
    shutil.rmtree(root, ignore_errors=True)
    need = int(target * 2.2) + 200 * MiB
    free = shutil.disk_usage(data_dir).free
    if free < need:
        raise SystemExit(f"bench: {format_size(target)} needs ~{need // MiB} MiB free disk")
    log(f"generating {format_size(target)} ({', '.join(FORMS)}) in {root}")
    dataset = generate(root, target, forms=FORMS, seed=seed)
    log(f"generated {dataset.units} units in {dataset.generate_seconds:.1f} s")
    return dataset


def describe_outputs(dataset: Dataset, out: Path) -> dict[str, Any]:
    info: dict[str, Any] = {}
    outputs = [out / f"evidence.{form}.json" for form in FORMS]
    present = [path for path in outputs if path.exists()]
    if present:
        document = orjson.loads(present[0].read_bytes())
        info["contexts"] = len(document["contexts"])
        info["published_units"] = sum(len(c["units"]) for c in document["contexts"])
        info["distinct_references"] = sum(len(c["references"]) for c in document["contexts"])
        info["output_bytes"] = present[0].stat().st_size
    if len(present) == 2:
        info["forms_identical"] = _same_bytes(*present)
    return info


# -- the report -----------------------------------------------------------------------


def environment() -> dict[str, str]:
    import ijson

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    os_name = platform.system()
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    commit = (
        subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, cwd=REPO, check=False
        )
        .stdout.decode()
        .strip()
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "streamer"],
        capture_output=True,
        cwd=REPO,
        check=False,
    ).stdout.strip()
    jq = shutil.which("jq")
    jq_version = (
        subprocess.run([jq, "--version"], capture_output=True, check=False).stdout.decode().strip()
        if jq
        else "not installed"
    )
    return {
        "CPU": f"{cpu}, {os.cpu_count()} cores",
        "RAM": ram,
        "OS": f"{os_name}, Linux {platform.release()}",
        "Python": platform.python_version(),
        "ijson": f"{version('ijson')} (backend {ijson.backend})",
        "orjson": version("orjson"),
        "msgspec": version("msgspec"),
        "sortedcontainers": version("sortedcontainers"),
        "streamer": f"{version('streamer')} (commit {commit or 'unknown'}"
        + (", with uncommitted changes under streamer/)" if dirty else ")"),
        "jq": jq_version,
        "matplotlib": version("matplotlib"),
        "load average at start (1, 5, 15 min)": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def table(results: list[Result]) -> list[str]:
    floors = {(r.size, r.form): r for r in results if r.contender == "floor" and r.state == "ok"}
    lines = [
        "| size | form | contender | wall (s) | CPU (s) | MB/s | peak RSS (MiB) "
        "| time / floor | CPU / floor | RSS / floor | check |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        floor = floors.get((r.size, r.form))
        if r.state != "ok":
            lines.append(
                f"| {r.size} | {r.form} | {r.contender} | {r.state} | | | | | | | {r.note} |"
            )
            continue
        time_ratio = r.wall / floor.wall if floor and floor.wall and r.wall else None
        cpu_ratio = r.cpu / floor.cpu if floor and floor.cpu and r.cpu else None
        rss_ratio = r.peak_rss / floor.peak_rss if floor and floor.peak_rss and r.peak_rss else None
        rss = r.peak_rss / MiB if r.peak_rss is not None else None
        lines.append(
            f"| {r.size} | {r.form} | {r.contender} | {_number(r.wall, 2)} "
            f"| {_number(r.cpu, 2)} | {_number(r.mb_per_s, 1)} | {_number(rss, 0)} "
            f"| {_number(time_ratio, 2)} | {_number(cpu_ratio, 2)} | {_number(rss_ratio, 2)} "
            f"| {r.check} |"
        )
    return lines


def write_report(
    out_dir: Path,
    results: list[Result],
    datasets: list[tuple[Dataset, dict[str, Any]]],
    command: str,
    baselines: tuple[Child, Child],
    env: dict[str, str],
    plotted: bool,
) -> None:
    lines = [
        "# Benchmark results",
        "",
        "Generated by `benchmarks/run.py` (see `benchmarks/README.md` for what each contender "
        "measures and how to read this). Every contender ran in its own subprocess on the "
        "same files with a warm page cache; wall time is measured around the child, peak RSS "
        "is the child's own `ru_maxrss`. MB are 10^6 bytes; RSS is in MiB.",
        "",
        "## Machine",
        "",
    ]
    lines += [f"- {name}: {value}" for name, value in env.items()]
    lines.append(
        "- load average at the end (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    lines += ["", "## Command", "", "```", command, "```", ""]
    lines += ["## Results", ""]
    lines += table(results)
    lines += ["", "## Data sets", ""]
    lines += [
        "| size | units | JSON bytes | JSON Lines bytes | references | cited units "
        "| contexts | published units | output bytes | json = jsonl output | generated in (s) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for dataset, info in datasets:
        same = info.get("forms_identical")
        lines.append(
            f"| {format_size(dataset.target_bytes)} | {dataset.units} "
            f"| {dataset.sizes.get('json', '')} | {dataset.sizes.get('jsonl', '')} "
            f"| {dataset.references} | {dataset.cited_units} | {info.get('contexts', '')} "
            f"| {info.get('published_units', '')} | {info.get('output_bytes', '')} "
            f"| {'' if same is None else ('identical' if same else 'DIFFER')} "
            f"| {dataset.generate_seconds:.1f} |"
        )
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
    (out_dir / "RESULTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def plot(out_dir: Path, results: list[Result], env: dict[str, str]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        log("matplotlib is not installed: no plot (make venv installs it)")
        return False
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5))
    colors = dict(zip(CONTENDERS, plt.get_cmap("tab10").colors, strict=False))
    styles = {"json": "-", "jsonl": "--"}
    for contender in CONTENDERS:
        for form in FORMS:
            points = sorted(
                (r.input_bytes / 1e6, r.wall, (r.peak_rss or 0) / MiB)
                for r in results
                if r.contender == contender and r.form == form and r.state == "ok" and r.wall
            )
            if not points:
                continue
            xs = [p[0] for p in points]
            label = f"{contender} ({form})"
            for axis, ys in ((left, [p[1] for p in points]), (right, [p[2] for p in points])):
                axis.plot(
                    xs,
                    ys,
                    styles[form],
                    marker="o",
                    markersize=4,
                    color=colors[contender],
                    label=label,
                )
    for axis, title, unit in (
        (left, "wall time", "seconds"),
        (right, "peak RSS", "MiB"),
    ):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("input size (MB)")
        axis.set_ylabel(unit)
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        plain = FuncFormatter(lambda value, _: f"{value:g}")
        axis.xaxis.set_major_formatter(plain)
        axis.yaxis.set_major_formatter(plain)
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.yaxis.set_minor_formatter(NullFormatter())
    handles, labels = left.get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=6, fontsize=8, frameon=False)
    figure.suptitle(
        f"streamer benchmarks (solid: JSON, dashed: JSON Lines): {env['CPU']}, "
        f"Python {env['Python']}",
        fontsize=10,
    )
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.savefig(out_dir / "results.png", dpi=110)
    plt.close(figure)
    return True


# -- main -----------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--sizes", help=f"comma-separated target sizes (default {DEFAULT_SIZES})")
    parser.add_argument("--forms", default="json,jsonl", help="json, jsonl or json,jsonl")
    parser.add_argument("--quick", action="store_true", help=f"smoke run: sizes {QUICK_SIZES}")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--naive-max", default="1GB", help="skip the naive baseline above this")
    parser.add_argument("--jq-max", default="1GB", help="skip jq above this (it loads it all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per contender; best time")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--out-dir", type=Path, default=HERE, help="where RESULTS.md goes")
    options = parser.parse_args(argv)
    if options.quick and options.sizes:
        parser.error("--quick chooses the sizes: give --quick or --sizes, not both")
    sizes_text = QUICK_SIZES if options.quick else (options.sizes or DEFAULT_SIZES)
    try:
        options.size_list = [parse_size(size) for size in sizes_text.split(",") if size.strip()]
        options.naive_max_text, options.naive_max = options.naive_max, parse_size(options.naive_max)
        options.jq_max_text, options.jq_max = options.jq_max, parse_size(options.jq_max)
    except ValueError as error:
        parser.error(str(error))
    options.form_list = [form.strip() for form in options.forms.split(",") if form.strip()]
    if not options.form_list or set(options.form_list) - set(FORMS):
        parser.error("--forms takes json, jsonl or json,jsonl")
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    return options


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    options = parse_args(arguments)
    options.data_dir.mkdir(parents=True, exist_ok=True)
    env = environment()
    bundle = bundle_help()
    log("streamer bundle: " + ("found" if bundle else "not in this checkout, skipped"))
    startup = measure([sys.executable, "-m", "streamer", "--help"], timeout=60)
    baseline = measure(["true"], timeout=60)
    results: list[Result] = []
    datasets: list[tuple[Dataset, dict[str, Any]]] = []
    for target in sorted(options.size_list):
        dataset = dataset_for(target, options.form_list, options.seed, options.data_dir)
        out = dataset.root / "out"
        out.mkdir(exist_ok=True)
        for form in options.form_list:
            results += run_case(Case(dataset, form, out), options, bundle)
            for line in table([r for r in results if r.size == format_size(target)])[2:]:
                log(line)
        datasets.append((dataset, describe_outputs(dataset, out)))
        if options.keep:
            shutil.rmtree(out, ignore_errors=True)
        else:
            shutil.rmtree(dataset.root, ignore_errors=True)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    plotted = plot(options.out_dir, results, env)
    command = "python -m benchmarks.run" + "".join(f" {arg}" for arg in arguments)
    write_report(options.out_dir, results, datasets, command, (startup, baseline), env, plotted)
    raw = {
        "command": command,
        "environment": env,
        "results": [{**asdict(r), "mb_per_s": r.mb_per_s} for r in results],
        "datasets": [{**d.to_json(), **info} for d, info in datasets],
    }
    (options.out_dir / "results.json").write_bytes(orjson.dumps(raw, option=orjson.OPT_INDENT_2))
    print("\n".join(table(results)))
    log(f"wrote {options.out_dir / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The report's cost: writing it, and opening it in a real browser.

``python -m benchmarks.report_load --units 100000`` generates a bundle whose evidence context
holds N units (one record cites them all; 1,000 more cite one unit each), then measures:

* ``streamer validate`` and ``streamer report``, each its own process: wall time, CPU time
  and peak RSS from ``os.wait4`` (the command includes the validation); and the report
  stage alone: its own process validates the bundle as ``report`` does (collecting the
  page's rows, ``EvidenceRows``) and times ``streamer.report.write_report`` (wall and CPU
  time of the writing alone; the peak RSS is the process's);
* the page in headless chromium (Playwright, ``/usr/bin/chromium``, a fresh profile): the
  time from navigation to the page being ready (``window.reportReadyMs``, measured by the
  page from navigation start, and the wall time around ``goto``), the JavaScript heap
  (``Performance.getMetrics``), the memory of this browser's processes (PSS), the
  number of DOM elements, and the time of one search over every unit.

``--bundle DIR`` measures an existing bundle instead (e.g. the 300 MB benchmark bundle:
``streamer bundle`` over ``benchmarks.generate``'s output). Standalone on purpose: it
needs nothing from ``benchmarks/run.py``. Nothing here is asserted; the test suite checks
correctness (``tests/test_report_browser.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.browser import ARGS, CHROMIUM
from streamer.framework.json.canonical import SemanticDigest

PLANTED = "the quartz lantern hums"
SPEAKERS = ["MATT", "LAURA", "SAM", "LIAM", "TRAVIS", "MARISHA", "TALIESIN", "ASHLEY"]
WORDS = tuple(
    [
        "the",
        "party",
        "rolls",
        "for",
        "initiative",
        "while",
        "a",
        "cold",
        "wind",
        "crosses",
        "the",
        "crypt",
        "road",
    ]
)


def generate(root: Path, count: int) -> Path:
    """A source document of ``count`` units (streamed to disk), two lanes and a
    configuration that publishes every unit."""
    root.mkdir(parents=True, exist_ok=True)
    digest = SemanticDigest()
    planted = count * 7 // 9
    units = root / "units.jsonl"
    with units.open("wb") as out:
        for i in range(count):
            text = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(4 + i % 23))
            if i == planted:
                text = f"and then {PLANTED}"
            unit = {
                "unit_id": f"t{i:07d}",
                "kind": "utterance",
                "text": text,
                "metadata": {
                    "speaker": SPEAKERS[i % len(SPEAKERS)],
                    "start_ms": i * 3100,
                    "end_ms": i * 3100 + 2900,
                },
            }
            digest.add(unit)
            out.write(orjson.dumps(unit) + b"\n")
    source = root / "source.jsonl"
    with source.open("wb") as out, units.open("rb") as body:
        header = {"document_id": "bench-report", "semantic_digest": digest.hexdigest()}
        out.write(orjson.dumps(header) + b"\n")
        shutil.copyfileobj(body, out)
    units.unlink()
    identity = {"document_id": "bench-report", "semantic_digest": digest.hexdigest()}
    lanes = root / "lanes"
    lanes.mkdir(exist_ok=True)
    step = max(1, count // 1000)
    spells = [
        {
            "spell_cast_id": "spell-all",
            "spell": "Wish",
            "caster": None,
            "source_refs": [{"start_unit_id": "t0000000", "end_unit_id": f"t{count - 1:07d}"}],
        }
    ]
    npcs = [
        {
            "npc_id": f"npc-{k}",
            "name": f"Stranger {k}",
            "source_refs": [{"start_unit_id": f"t{k:07d}", "end_unit_id": f"t{k:07d}"}],
        }
        for k in range(0, count, step)
    ]
    for lane_id, kind, records in (
        ("spells", "dnd/spell-casts", spells),
        ("npcs", "dnd/npcs", npcs),
    ):
        stem = kind.replace("/", ".").replace("-", "_")
        payload = {
            "lane_id": lane_id,
            "artifact_kind": kind,
            "schema": {
                "id": f"notarius.{stem}",
                "name": f"notarius_{stem.replace('.', '_')}_v1",
                "version": "v1",
            },
            "source": identity,
            "records": records,
        }
        (lanes / f"{lane_id}.json").write_bytes(orjson.dumps(payload))
    config = root / "streamer.yaml"
    config.write_text(
        "pipeline:\n  lanes:\n"
        "    - {id: spells, artifact_kind: dnd/spell-casts}\n"
        "    - {id: npcs, artifact_kind: dnd/npcs}\n"
        "output:\n  module: json\n  options:\n    evidence_context:\n"
        "      enabled: true\n      window_units: 0\n      lanes: [spells, npcs]\n",
        encoding="utf-8",
    )
    bundle = root / "bundle"
    status = measured(
        [
            *STREAMER,
            "bundle",
            "--config",
            str(config),
            "--source",
            str(source),
            "--lanes-dir",
            str(lanes),
            "--output",
            str(bundle),
            "--force",
            "--quiet",
        ],
        stdout=os.devnull,
    )["status"]
    if status != 0:
        raise SystemExit(f"streamer bundle failed with status {status}")
    source.unlink()
    return bundle


STREAMER = [sys.executable, "-m", "streamer"]
# The page written from the rows validation collected (the production path): the writing
# alone is timed, and its wall and CPU seconds printed as JSON on standard error.
STAGE_ONLY = """
import json, pathlib, sys, time
from streamer.api.config import default_registry
from streamer.api.validation import validate_bundle
from streamer.report import write_report
from streamer.report.evidence_rows import EvidenceRows
folder, registry, rows = pathlib.Path(sys.argv[1]), default_registry(), EvidenceRows()
assert validate_bundle(folder, registry, rows).valid
wall, cpu = time.perf_counter(), time.process_time()
write_report(folder, registry, sys.stdout.buffer, evidence=rows)
sys.stdout.flush()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall_s": wall, "cpu_s": cpu}), file=sys.stderr)
"""


def measured(command: list[str], *, stdout: str, stderr: str | None = None) -> dict[str, Any]:
    """Run ``command`` (standard output to the file ``stdout``, standard error to the file
    ``stderr`` when given): status, wall, CPU, peak RSS."""
    with open(stdout, "wb") as out, open(stderr or os.devnull, "wb") as err:
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1)]
        if stderr is not None:
            actions.append((os.POSIX_SPAWN_DUP2, err.fileno(), 2))
        began = time.perf_counter()
        pid = os.posix_spawn(command[0], command, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
    return {
        "status": os.waitstatus_to_exitcode(status),
        "wall_s": time.perf_counter() - began,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }


def browser_pss(profile: str) -> float:
    """MiB of proportional set size (shared pages divided among their users) of the
    processes of the browser started with ``profile``."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if profile.encode() not in (entry / "cmdline").read_bytes():
                continue
            for line in (entry / "smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def open_in_browser(report: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="report-load-profile-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS
            )
            page = context.new_page()
            began = time.perf_counter()
            page.goto(report.as_uri())
            page.wait_for_selector("html[data-ready=true]", state="attached", timeout=600_000)
            wall = time.perf_counter() - began
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            result = {
                "ready_ms": page.evaluate("window.reportReadyMs"),
                "goto_to_ready_s": wall,
                "js_heap_mib": metrics["JSHeapUsedSize"] / 2**20,
                "browser_pss_mib": browser_pss(profile),
                "dom_elements": page.evaluate("document.getElementsByTagName('*').length"),
            }
            searched = page.evaluate(
                """query => { const input = document.getElementById('search');
                    const began = performance.now(); input.value = query;
                    input.dispatchEvent(new Event('input'));
                    return [performance.now() - began,
                            document.getElementById('status').textContent]; }""",
                PLANTED,
            )
            result["search_ms"], result["search_result"] = searched
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report_load", description=__doc__)
    parser.add_argument("--units", type=int, default=100_000, help="units of the evidence")
    parser.add_argument("--bundle", type=Path, help="measure this bundle instead of generating")
    parser.add_argument("--work-dir", type=Path, help="where the bundle and report go (kept)")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="report-load-"))
    try:
        bundle = args.bundle or generate(work, args.units)
        report = work / "report.html"
        results: dict[str, Any] = {
            "bundle": str(bundle) if args.bundle else f"generated, {args.units} units",
            "evidence_mb": (bundle / "evidence-context.json").stat().st_size / 1e6
            if (bundle / "evidence-context.json").exists()
            else 0.0,
            "validate": measured([*STREAMER, "validate", str(bundle)], stdout=os.devnull),
            "report": measured(
                [*STREAMER, "report", str(bundle), "--output", str(report)], stdout=os.devnull
            ),
        }
        # The report stage alone: the writing, after the validation the command runs first.
        timings = work / "report_stage.json"
        stage = measured(
            [sys.executable, "-c", STAGE_ONLY, str(bundle)], stdout=os.devnull, stderr=str(timings)
        )
        if stage["status"] == 0:
            stage.update(json.loads(timings.read_text(encoding="utf-8")))
        results["report_stage"] = stage
        if results["report"]["status"] != 0:
            raise SystemExit(f"streamer report failed with status {results['report']['status']}")
        results["report_mb"] = report.stat().st_size / 1e6
        results["browser"] = open_in_browser(report)
    finally:
        if args.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``benchmarks/report_load.py`` on the bundle of ``bundle``: ``streamer validate`` and
``streamer report`` timed, then the page opened in headless chromium (ready time, JS heap).
The timing here is the whole script; its own figures are in the check's text (and in its
JSON, ``<out>/report_load.<form>.json``, while the case runs). Skipped when the script,
Playwright or ``/usr/bin/chromium`` is absent."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from benchmarks.contenders import Invocation, Script, register

if TYPE_CHECKING:
    from benchmarks.cases import Case

CHROMIUM = Path("/usr/bin/chromium")


class ReportLoad(Script):
    def skip(self, case: Case) -> str | None:
        reason = super().skip(case)
        if reason is None and not CHROMIUM.exists():
            return f"{CHROMIUM} is absent"
        return reason


def _json(case: Case) -> Path:
    return case.out / f"report_load.{case.form}.json"


def _args(case: Case) -> list[str]:
    work = case.out / f"report-load.{case.form}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    bundle = str(case.outputs["bundle"])
    return ["--bundle", bundle, "--work-dir", str(work), "--json", str(_json(case))]


def _check(case: Case, invocation: Invocation) -> str:
    found = orjson.loads(_json(case).read_bytes())
    report, browser = found["report"], found["browser"]
    if report["status"] != 0 or not browser.get("search_result"):
        return "REPORT FAILED"
    return (
        f"report {report['wall_s']:.2f} s, {report['peak_rss_mib']:.0f} MiB; page ready in "
        f"{browser['ready_ms']:.0f} ms, JS heap {browser['js_heap_mib']:.0f} MiB"
    )


register(
    ReportLoad(
        name="report-load",
        summary="`benchmarks/report_load.py`: streamer report on the bundle, opened in chromium",
        module="benchmarks.report_load",
        args=_args,
        checker=_check,
        needs=("bundle",),
        output=_json,
        distributions=("playwright",),
        requires=("playwright",),
    )
)

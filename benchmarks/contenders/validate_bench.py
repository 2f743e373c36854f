"""``benchmarks/validate_bench.py`` at the case's size: ``streamer bundle`` and
``streamer validate`` on the same bundle, with a large evidence document (its own data
set: the synthetic generator, 30% cited, JSON Lines), against issue 8's targets. The
timing here is the whole script (its generation included); its own figures are in the
check's text. Runs on the synthetic profile's JSON Lines cases only; skipped while the
script is absent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from benchmarks.contenders import Invocation, Script, register

if TYPE_CHECKING:
    from benchmarks.cases import Case

MB = 10**6


def _json(case: Case) -> Path:
    return case.out / f"validate_bench.{case.form}.json"


def _args(case: Case) -> list[str]:
    repeat = str(case.settings.repeat)
    return ["--size", case.size, "--repeat", repeat, "--json", str(_json(case))]


def _check(case: Case, invocation: Invocation) -> str:
    found = orjson.loads(_json(case).read_bytes())
    ratio, peak = found["wall_ratio"], found["validate"]["peak_rss"]
    met = "met" if ratio <= 1.5 and peak < 100 * MB else "missed"
    return (
        f"validate / bundle {ratio:.2f}x wall, validate {peak / MB:.0f} MB peak on "
        f"{found['evidence_bytes'] / MB:.0f} MB of evidence (targets {met})"
    )


class ValidateBench(Script):
    def skip(self, case: Case) -> str | None:
        reason = super().skip(case)
        if reason is None and case.dataset.target_bytes > MAX_SIZE:
            return "issue 8's check runs up to 1GB (it builds a bundle with 30% cited of its own)"
        return reason


MAX_SIZE = 10**9


register(
    ValidateBench(
        name="validate-bench",
        summary="`benchmarks/validate_bench.py`: validate against bundle on a large evidence",
        module="benchmarks.validate_bench",
        args=_args,
        checker=_check,
        forms=("jsonl",),
        output=_json,
        profiles=("synthetic",),
    )
)

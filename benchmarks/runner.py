"""Running one contender on one case: each invocation measured ``--repeat`` times (best
wall time, highest peak RSS), checked, the fastest right variant kept."""

from __future__ import annotations

import sys

from benchmarks.cases import Case, Result
from benchmarks.checks import wrong
from benchmarks.contenders import Contender, Invocation
from benchmarks.measure import Child, measure


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run_contender(contender: Contender, case: Case) -> Result:
    if case.form not in contender.forms:
        return Result.of(case, contender.name, "skipped", note=f"no {case.form} form")
    missing = [name for name in contender.needs if name not in case.outputs]
    if missing:
        return Result.of(case, contender.name, "skipped", note=f"needs {', '.join(missing)}")
    reason = contender.skip(case)
    if reason:
        return Result.of(case, contender.name, "skipped", note=reason)
    kept: Result | None = None
    kept_output = None
    variants = []
    for invocation in contender.invocations(case):
        log(
            f"{case.label}: {contender.name}"
            + (f" ({invocation.variant})" if invocation.variant else "")
        )
        result = _measured(contender, case, invocation)
        variants.append(
            {
                "variant": invocation.variant,
                "state": result.state,
                "wall": result.wall,
                "cpu": result.cpu,
                "peak_rss": result.peak_rss,
                "check": result.check,
                "note": result.note,
            }
        )
        if result.state != "ok":
            if kept is None or kept.state != "ok":
                kept = result  # a failure is reported unless some variant succeeded
            continue
        if wrong(result.check):
            kept = result  # a wrong answer is reported, whatever its speed
            kept_output = None
            break
        if kept is None or kept.state != "ok" or (result.wall or 0) < (kept.wall or 0):
            kept, kept_output = result, invocation.output
    assert kept is not None
    if len(variants) > 1:
        kept.variants = variants
    if kept.state == "ok" and kept_output is not None:
        case.outputs[contender.name] = kept_output
    return kept


def _measured(contender: Contender, case: Case, invocation: Invocation) -> Result:
    settings = case.settings
    best: Child | None = None
    peak = 0
    for _ in range(settings.repeat):
        if invocation.before:
            invocation.before()
        child = measure(
            invocation.argv,
            stdin=invocation.stdin,
            stdout=invocation.stdout,
            timeout=settings.timeout,
        )
        if child.status is None:
            note = f"> {settings.timeout:g} s"
            return Result.of(case, contender.name, "timeout", note=note, variant=invocation.variant)
        if child.status != 0:
            last = child.stderr.strip().splitlines()[-1:] or [""]
            note = f"exit {child.status}: {last[0][:160]}"
            return Result.of(case, contender.name, "failed", note=note, variant=invocation.variant)
        peak = max(peak, child.peak_rss)
        if best is None or child.wall < best.wall:
            best = child
    assert best is not None
    result = Result.of(
        case,
        contender.name,
        "ok",
        wall=best.wall,
        cpu=best.cpu,
        peak_rss=peak,
        variant=invocation.variant,
    )
    result.check = contender.check(case, invocation)
    return result

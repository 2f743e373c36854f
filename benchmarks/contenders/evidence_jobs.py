"""``streamer evidence --jobs 2``: the source parsed and validated by two processes (the
main one and a worker), the digest and coverage fed in document order. Checked
byte-identical to ``evidence``. Skipped, and said so, while ``streamer evidence --help``
offers no ``--jobs``."""

from __future__ import annotations

import functools
import subprocess
from typing import TYPE_CHECKING

from benchmarks.checks import check_same
from benchmarks.contenders import Contender, Invocation, register
from benchmarks.contenders.evidence import STREAMER

if TYPE_CHECKING:
    from benchmarks.cases import Case

JOBS = 2


@functools.cache
def has_jobs() -> bool:
    """Whether this checkout's ``streamer evidence`` takes ``--jobs``."""
    shown = subprocess.run(
        [*STREAMER, "evidence", "--help"], capture_output=True, text=True, check=False
    )
    return "--jobs" in shown.stdout


class EvidenceJobs(Contender):
    name = "evidence-jobs"
    summary = f"the same with `--jobs {JOBS}` (parsed and validated by {JOBS} processes)"
    needs = ("evidence",)

    def skip(self, case: Case) -> str | None:
        return None if has_jobs() else "streamer has no --jobs"

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"evidence-jobs.{case.form}.json"
        argv = [*STREAMER, "evidence", *case.evidence_args, "--source", str(case.source)]
        argv += ["--jobs", str(JOBS), "--output", str(output)]
        return [Invocation(argv, output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return check_same(invocation.output, case.outputs.get("evidence"), "evidence")


register(EvidenceJobs())

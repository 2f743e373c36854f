"""``streamer bundle --jobs 2``: the bundle with the source parsed and validated in two
worker processes. Checked: every file of its folder byte-identical to ``bundle``'s.
Skipped, and said so, while ``streamer evidence --help`` offers no ``--jobs``."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from benchmarks.contenders import Contender, Invocation, register
from benchmarks.contenders.evidence import STREAMER
from benchmarks.contenders.evidence_jobs import JOBS, has_jobs

if TYPE_CHECKING:
    from pathlib import Path

    from benchmarks.cases import Case


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


class BundleJobs(Contender):
    name = "bundle-jobs"
    summary = f"`streamer bundle --jobs {JOBS}` (every file checked identical to `bundle`'s)"
    needs = ("bundle",)

    def skip(self, case: Case) -> str | None:
        return None if has_jobs() else "streamer has no --jobs"

    def invocations(self, case: Case) -> list[Invocation]:
        destination = case.out / f"bundle-jobs.{case.form}"
        argv = [*STREAMER, "bundle", *case.evidence_args, "--source", str(case.source)]
        argv += ["--jobs", str(JOBS), "--output", str(destination), "--quiet"]
        return [
            Invocation(
                argv,
                output=destination,
                before=lambda: shutil.rmtree(destination, ignore_errors=True),
            )
        ]

    def check(self, case: Case, invocation: Invocation) -> str:
        assert invocation.output is not None
        reference = case.outputs.get("bundle")
        if reference is None:
            return "NO BUNDLE to compare with"
        mine, theirs = _files(invocation.output), _files(reference)
        if mine != theirs:
            differ = sorted(
                name for name in mine.keys() | theirs.keys() if mine.get(name) != theirs.get(name)
            )
            return "DIFFERS from bundle: " + ", ".join(differ[:3])
        return f"identical to bundle ({len(mine)} files)"


register(BundleJobs())

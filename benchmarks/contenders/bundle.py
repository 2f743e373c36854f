"""``streamer bundle``: the whole bundle folder (index, lane payloads, chunk map and the
evidence context). Checked: its ``evidence-context.json`` is byte-identical to
``evidence``. Its output (the bundle folder) is there for later contenders (validate)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from benchmarks.checks import check_same
from benchmarks.contenders import Contender, Invocation, register
from benchmarks.contenders.evidence import STREAMER

if TYPE_CHECKING:
    from benchmarks.cases import Case


class Bundle(Contender):
    name = "bundle"
    summary = "`streamer bundle --output DIR` (the evidence context checked identical)"
    needs = ("evidence",)

    def invocations(self, case: Case) -> list[Invocation]:
        destination = case.out / f"bundle.{case.form}"
        argv = [*STREAMER, "bundle", *case.evidence_args, "--source", str(case.source)]
        return [
            Invocation(
                [*argv, "--output", str(destination), "--quiet"],
                output=destination,
                before=lambda: shutil.rmtree(destination, ignore_errors=True),
            )
        ]

    def check(self, case: Case, invocation: Invocation) -> str:
        assert invocation.output is not None
        found = sorted(invocation.output.rglob("evidence-context.json"))
        if not found:
            return "NO EVIDENCE CONTEXT in the bundle"
        return check_same(found[0], case.outputs.get("evidence"), "evidence")


register(Bundle())

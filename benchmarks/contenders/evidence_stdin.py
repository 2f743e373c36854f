"""``streamer evidence --source - --output -``: the file on standard input, the document on
standard output (to a file). Checked byte-identical to ``evidence``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.checks import check_same
from benchmarks.contenders import Contender, Invocation, register
from benchmarks.contenders.evidence import STREAMER

if TYPE_CHECKING:
    from benchmarks.cases import Case


class EvidenceStdin(Contender):
    name = "evidence-stdin"
    summary = "the same with `--source -` and `--output -` (a pipe at both ends)"
    needs = ("evidence",)

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"evidence-stdin.{case.form}.json"
        argv = [*STREAMER, "evidence", *case.evidence_args, "--source", "-", "--output", "-"]
        return [Invocation(argv, stdin=case.source, stdout=output, output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return check_same(invocation.output, case.outputs.get("evidence"), "evidence")


register(EvidenceStdin())

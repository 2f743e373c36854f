"""``streamer validate DIR`` on the bundle that ``bundle`` just published (the same bundle):
every document read and checked. Checked: exit status 0 and the one-line summary on
standard output says the bundle is valid. ``benchmarks/validate_bench.py`` compares it with
``bundle`` on a bundle with a large evidence document."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from benchmarks.contenders import Contender, Invocation, register
from benchmarks.contenders.evidence import STREAMER

if TYPE_CHECKING:
    from benchmarks.cases import Case


class Validate(Contender):
    name = "validate"
    summary = "`streamer validate DIR` on the bundle of `bundle` (the same bundle)"
    needs = ("bundle",)

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"validate.{case.form}.json"
        argv = [*STREAMER, "validate", str(case.outputs["bundle"])]
        return [Invocation(argv, stdout=output, output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        assert invocation.output is not None
        try:
            summary = orjson.loads(invocation.output.read_bytes())
        except orjson.JSONDecodeError:
            return "NO SUMMARY on standard output"
        if not isinstance(summary, dict) or summary.get("status") != "valid":
            return "NOT VALID"
        return "bundle valid"


register(Validate())

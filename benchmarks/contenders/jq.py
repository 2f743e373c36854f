"""jq (``/usr/bin/jq``): load the document, build the ID -> position object, expand and
merge the references (given as a flat list of ``[start_id, end_id]``) and print the
covered units, one a line, in document order: the *selection* at the heart of the
evidence document, not the document (no digest, no references per context). Checked: the
same units as ``evidence``. Skipped above ``--jq-max`` (jq holds the whole document)."""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING

from benchmarks.checks import check_units
from benchmarks.contenders import Contender, Invocation, register
from benchmarks.skips import too_big

if TYPE_CHECKING:
    from benchmarks.cases import Case

COVERED = """
def covered($units; $refs; $w):
  ($units | length) as $n
  | (reduce range(0; $n) as $i ({}; .[$units[$i].unit_id] = $i)) as $pos
  | [$refs[] | [([$pos[.[0]] - $w, 0] | max), ([$pos[.[1]] + $w, $n - 1] | min)]]
  | sort
  | reduce .[] as $r ([]; if length > 0 and $r[0] <= .[-1][1] + 1
                          then .[-1][1] = ([.[-1][1], $r[1]] | max) else . + [$r] end)
  | .[] | $units[.[0]:.[1] + 1][];
"""
MAIN = {
    "json": "covered(input.units; $refs[0]; $w)",
    "jsonl": "input as $header | covered([inputs]; $refs[0]; $w)",
}


class Jq(Contender):
    name = "jq"
    summary = "jq: the covered units, in document order (the selection, not the document)"
    needs = ("evidence",)

    def versions(self) -> dict[str, str]:
        jq = shutil.which("jq")
        if jq is None:
            return {"jq": "not installed"}
        found = subprocess.run([jq, "--version"], capture_output=True, check=False)
        return {"jq": found.stdout.decode().strip()}

    def skip(self, case: Case) -> str | None:
        if shutil.which("jq") is None:
            return "jq is not installed"
        return too_big(case, "jq")

    def invocations(self, case: Case) -> list[Invocation]:
        jq = shutil.which("jq") or "jq"
        output = case.out / f"jq.{case.form}.jsonl"
        argv = [jq, "-c", "-n", "--slurpfile", "refs", str(case.references())]
        argv += ["--argjson", "w", str(case.dataset.window), COVERED + MAIN[case.form]]
        return [Invocation([*argv, str(case.source)], stdout=output, output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return check_units(invocation.output, case.outputs.get("evidence"))


register(Jq())

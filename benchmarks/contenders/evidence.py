"""``streamer evidence`` on the file: the real command, start-up, configuration, lane
validation, validation of every unit, projection and the atomic (fsynced) write. Its
output is the reference the other contenders are checked against."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.contenders import PYTHON, Contender, Invocation, register, version_of

if TYPE_CHECKING:
    from benchmarks.cases import Case

STREAMER = [PYTHON, "-m", "streamer"]


class Evidence(Contender):
    name = "evidence"
    summary = "`streamer evidence --source FILE --output FILE` (the reference output)"

    def versions(self) -> dict[str, str]:
        return {"msgspec": version_of("msgspec"), "orjson": version_of("orjson")}

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"evidence.{case.form}.json"
        argv = [*STREAMER, "evidence", *case.evidence_args, "--source", str(case.source)]
        return [Invocation([*argv, "--output", str(output)], output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return "reference output"


register(Evidence())

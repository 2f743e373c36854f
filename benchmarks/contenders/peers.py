"""What the two peers (polars, DuckDB) share: their contender, their arguments.

A peer is a short script a user might write instead of ``streamer evidence``: it reads the
source document, finds each reference's units, widens them by the window and writes the
covered units, in document order, as JSON Lines (the *selection*: no digest, no
validation, no references per context). Checked: the same units as ``evidence``.
Skipped above ``--peers-max`` (JSON: ``--peers-json-max``; they hold the parsed document,
about 9x its size) or when the library is not installed (``make bench``
installs ``benchmarks/requirements.txt``).
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchmarks.checks import check_units
from benchmarks.contenders import PYTHON, Contender, Invocation, version_of
from benchmarks.skips import too_big

if TYPE_CHECKING:
    from benchmarks.cases import Case


class Peer(Contender):
    needs = ("evidence",)

    def __init__(self, name: str, summary: str, module: str, library: str) -> None:
        self.name, self.summary, self.module, self.library = name, summary, module, library

    def versions(self) -> dict[str, str]:
        return {self.library: version_of(self.library)}

    def skip(self, case: Case) -> str | None:
        if importlib.util.find_spec(self.library) is None:
            return f"{self.library} is not installed (make bench installs it)"
        return too_big(case, self.name)

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"{self.name}.{case.form}.jsonl"
        argv = [PYTHON, "-m", self.module, "--form", case.form, "--window"]
        argv += [str(case.dataset.window), "--references", str(case.references("jsonl"))]
        return [Invocation([*argv, str(case.source), str(output)], output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return check_units(invocation.output, case.outputs.get("evidence"))


def parse_args(prog: str, doc: str | None, argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc)
    parser.add_argument("source")
    parser.add_argument("output", help="the covered units, JSON Lines")
    parser.add_argument("--form", choices=("json", "jsonl"), required=True)
    parser.add_argument("--window", type=int, required=True)
    parser.add_argument(
        "--references", required=True, help="JSON Lines of {start_unit_id, end_unit_id}"
    )
    return parser.parse_args(argv)

"""The contenders: one small module each, registered here in the order they run.

A contender says how to run itself on a case and how to check what it produced:

- ``name``, ``summary`` (one line for ``RESULTS.md``), ``forms`` it runs on;
- ``versions()``: the versions of what it runs (for the machine section of ``RESULTS.md``);
- ``skip(case)``: why it does not run on this case (too big, not installed), or ``None``;
- ``invocations(case)``: one or more ``Invocation`` (command, standard streams, the file
  the check reads). With several (the floor's variants) each is measured and the
  fastest right one is kept; all are recorded in ``results.json``;
- ``check(case, invocation)``: the correctness check shown beside the timing. Anything
  in capitals (``DIFFERS``, ``WRONG``) is a bug, in the contender or in the harness.

``needs`` names contenders whose output this one reads (``case.outputs[name]``): it is
skipped when they produced none. A standalone benchmark script registers with a few
lines (``Script``; ``report_load.py`` here is one)::

    register(Script(name="my-bench", summary="what it measures", module="benchmarks.my_bench",
                    needs=("bundle",), args=lambda case: [str(case.outputs["bundle"])]))
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the children import this package: it stays light
    from benchmarks.cases import Case

PYTHON = sys.executable
FORMS = ("json", "jsonl")


@dataclass(frozen=True)
class Invocation:
    argv: Sequence[str]
    stdin: Path | None = None
    stdout: Path | None = None
    output: Path | None = None  # what the check reads (and later contenders may)
    variant: str = ""
    before: Callable[[], None] | None = None  # run before each repetition (untimed)


class Contender:
    name: str = ""
    summary: str = ""
    forms: tuple[str, ...] = FORMS
    needs: tuple[str, ...] = ()

    def versions(self) -> dict[str, str]:
        return {}

    def skip(self, case: Case) -> str | None:
        return None

    def invocations(self, case: Case) -> list[Invocation]:
        raise NotImplementedError

    def check(self, case: Case, invocation: Invocation) -> str:
        return ""


def version_of(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@dataclass
class Script(Contender):
    """A Python module run as ``python -m MODULE ARGS...``: ``args(case)`` gives the
    arguments, ``checker`` the check (default: the exit status only), ``output(case)``
    the file or folder it writes; with ``capture``, its standard output goes to that file
    (default ``<out>/<name>.<form>.out``). Skipped when the module, or one of ``requires``
    (modules), cannot be imported, and on profiles other than ``profiles`` (when given)."""

    name: str = ""
    summary: str = ""
    module: str = ""
    args: Callable[[Case], list[str]] = lambda case: []
    checker: Callable[[Case, Invocation], str] | None = None
    needs: tuple[str, ...] = ()
    forms: tuple[str, ...] = FORMS
    output: Callable[[Case], Path | None] = lambda case: None
    capture: bool = False
    distributions: tuple[str, ...] = field(default=())
    requires: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()

    def versions(self) -> dict[str, str]:
        return {name: version_of(name) for name in self.distributions}

    def skip(self, case: Case) -> str | None:
        if importlib.util.find_spec(self.module) is None:
            return f"{self.module.replace('.', '/')}.py is not in this checkout"
        for module in self.requires:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed"
        if self.profiles and case.profile not in self.profiles:
            return f"runs on the {', '.join(self.profiles)} profile only"
        return None

    def invocations(self, case: Case) -> list[Invocation]:
        argv = [PYTHON, "-m", self.module, *self.args(case)]
        output = self.output(case)
        if not self.capture:
            return [Invocation(argv, output=output)]
        output = output or case.out / f"{self.name}.{case.form}.out"
        return [Invocation(argv, stdout=output, output=output)]

    def check(self, case: Case, invocation: Invocation) -> str:
        return self.checker(case, invocation) if self.checker else "exit status 0"


CONTENDERS: list[Contender] = []

# The built-in contenders' modules, and the order the contenders run in (evidence before
# those checked against it; bundle before those that read its bundle). Contenders
# registered by other modules run after these, in the order they were registered.
BUILT_IN = (
    "floor",
    "evidence",
    "evidence_stdin",
    "evidence_jobs",
    "bundle",
    "bundle_jobs",
    "validate",
    "naive",
    "jq",
    "polars_script",
    "duckdb_query",
    "report_load",
)
ORDER = (
    "floor",
    "evidence",
    "evidence-stdin",
    "evidence-jobs",
    "bundle",
    "bundle-jobs",
    "validate",
    "naive",
    "jq",
    "polars",
    "duckdb",
    "report-load",
    "validate-bench",
)


def register(contender: Contender) -> Contender:
    if any(known.name == contender.name for known in CONTENDERS):
        raise ValueError(f"contender {contender.name!r} is registered twice")
    CONTENDERS.append(contender)
    return contender


def load() -> list[Contender]:
    """Every contender (each module registers its own when first imported), in order."""
    for name in BUILT_IN:
        importlib.import_module(f"benchmarks.contenders.{name}")
    position = {name: index for index, name in enumerate(ORDER)}
    registered = {id(c): index for index, c in enumerate(CONTENDERS)}
    return sorted(CONTENDERS, key=lambda c: (position.get(c.name, len(ORDER)), registered[id(c)]))

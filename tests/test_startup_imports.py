"""What a start imports (issue 31: a model-free run of a four-hour episode in under a
second, most of which was Python's start and its imports). Each case runs in a fresh
process, since what a process has imported is the point: ``streamer --version`` reads no
command, and a model-free ``streamer run`` never imports what only a model server, a
configuration file, the campaign outputs, the evaluation or another command needs. The
time itself is measured by ``benchmarks/startup_bench.py``, never asserted here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import REPO

# Packages a model-free run does without (measured with -X importtime): asyncio and the
# model server's client and its retries, the configuration's YAML, Dask, and what only
# the tests or the browser checks use.
NOT_FOR_A_RUN = (
    "asyncio",
    "httpx",
    "tenacity",
    "yaml",
    "distributed",
    "dask",
    "playwright",
    "hypothesis",
)

# streamer's modules a model-free run does without: the model lanes' asking, the
# estimate (a model server's), the notes vault and the campaign (another output group's
# plugin), the evaluation.
STREAMER_NOT_FOR_A_RUN = (
    "streamer.api.model_answers",
    "streamer.extraction.transport",
    "streamer.extraction.negotiation",
    "streamer.extraction.signals",
    "streamer.extraction.combined_run",
    "streamer.extraction.server_facts",
    "streamer.api.estimate",
    "streamer.cli.estimate_summary",
    "streamer.api.vault",
    "streamer.api.campaigns",
    "streamer.api.evaluation",
    "streamer.evaluation",
)

# What ``--version`` needs: the entry point, the app and the exit statuses.
VERSION_MODULES = [
    "streamer",
    "streamer.cli",
    "streamer.cli.app",
    "streamer.cli.main",
    "streamer.framework",
    "streamer.framework.errors",
    "streamer.framework.errors.types",
]


def imported_by(arguments: list[str], cwd: Path) -> tuple[str, list[str]]:
    """What ``streamer ARGUMENTS`` printed, and every module its process had imported when
    it ended."""
    script = (
        "import sys\nfrom streamer.cli.main import main\ntry:\n"
        f"    main({arguments!r})\nexcept SystemExit as end:\n    assert end.code == 0, end.code\n"
        "print('\\n'.join(['MODULES', *sorted(sys.modules)]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=cwd
    )
    printed, _, modules = result.stdout.partition("MODULES\n")
    return printed, modules.split()


def under(modules: list[str], roots: tuple[str, ...]) -> list[str]:
    return [
        module
        for module in modules
        if module in roots or module.startswith(tuple(f"{root}." for root in roots))
    ]


def test_the_version_reads_no_command() -> None:
    printed, modules = imported_by(["--version"], REPO)
    assert printed == "streamer 0.1.0\n"
    assert [module for module in modules if module.startswith("streamer")] == VERSION_MODULES
    heavy = ("asyncio", "importlib.metadata", "jsonschema", "msgspec", "hyperscan", "ijson")
    assert under(modules, heavy + NOT_FOR_A_RUN) == []


def test_the_version_after_debug_reads_no_command_either() -> None:
    printed, modules = imported_by(["--debug", "--version", "run"], REPO)
    assert printed == "streamer 0.1.0\n"
    assert [module for module in modules if module.startswith("streamer")] == VERSION_MODULES


def test_a_model_free_run_imports_neither_the_server_client_nor_yaml(tmp_path: Path) -> None:
    transcript = REPO / "fixtures" / "import" / "bridge-crd3.json"
    output = tmp_path / "out"
    printed, modules = imported_by(["run", str(transcript), "--output", str(output)], tmp_path)
    assert printed.startswith('{"status":"ok"')  # it ran: every stage, the report
    assert (tmp_path / "out.html").is_file()
    assert under(modules, NOT_FOR_A_RUN + STREAMER_NOT_FOR_A_RUN) == []
    assert "streamer.cli.run_command" in modules  # the run's own command, and no other
    assert under(modules, ("streamer.cli.import_command",)) == ["streamer.cli.import_command"]
    assert under(modules, ("streamer.cli.batch_command", "streamer.cli.eval_command")) == []

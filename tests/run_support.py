"""Helpers of the ``run`` and ``batch`` tests: folders as bytes, stage executions counted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from streamer.api import stages

IMPORT = Path(__file__).resolve().parent.parent / "fixtures" / "import"
CONFIG = IMPORT / "streamer.yaml"


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by ``/``-separated relative path, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def statuses(receipt: dict[str, Any]) -> list[tuple[str, str]]:
    return [(stage["stage"], stage["status"]) for stage in receipt["stages"]]


class StageCalls:
    """Counts how often each stage's function runs (the stage list is patched in place)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: Counter[str] = Counter()
        self.fail_in: str | None = None
        patched = []
        for stage in stages.STAGES:
            patched.append(_counted(stage, self))
        monkeypatch.setattr(stages, "STAGES", tuple(patched))


def _counted(stage: stages.Stage, counter: StageCalls) -> stages.Stage:
    original: Callable[[stages.RunPlan], dict[str, Any]] = stage.run

    def run(plan: stages.RunPlan) -> dict[str, Any]:
        counter.calls[stage.name] += 1
        if counter.fail_in == stage.name:
            raise KeyboardInterrupt
        return original(plan)

    return stages.Stage(
        stage.name, stage.inputs, stage.configuration, stage.outputs, run, stage.module
    )

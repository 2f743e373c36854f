"""Helpers of the ``run`` and ``batch`` tests: folders as bytes, stage executions counted."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from streamer import api
from streamer.api import stages

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
IMPORT = FIXTURES / "import"
BATCH = FIXTURES / "batch"
CONFIG = BATCH / "streamer.yaml"  # the spells lane, by the rules engine
TRANSCRIPT = IMPORT / "bridge.txt"  # "Sel casts Feather Fall": one spell cast


def by_hand(
    root: Path,
    transcript: Path,
    format_name: str,
    document_id: str,
    config_path: Path = CONFIG,
) -> Path:
    """The bundle the stage commands publish when run one after the other (and its
    report, ``bundle.html`` beside it, with the glossary's party and the rejections as
    ``streamer run`` gives them)."""
    root.mkdir()
    config = api.load_config(config_path)
    source = root / "source.jsonl"
    api.import_transcript(format_name, transcript, document_id=document_id, output=source)
    candidates = root / "candidates"
    api.extract(config, source, candidates)
    lanes = root / "lanes"
    api.normalize(config, source, candidates, lanes, warn=quiet)
    api.bundle(config, source, lanes, root / "bundle", warn=quiet)
    api.report(
        root / "bundle",
        output=root / "bundle.html",
        glossary=config.normalization.glossary,
        rejections=lanes / "rejections.jsonl",
    )
    return root / "bundle"


def quiet(_: str) -> None:
    pass


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


def _counted(stage: stages.Stage[Any], counter: StageCalls) -> stages.Stage[Any]:
    original: Callable[[stages.RunPlan], Any] = stage.run

    def run(plan: stages.RunPlan) -> Any:
        counter.calls[stage.name] += 1
        if counter.fail_in == stage.name:
            raise KeyboardInterrupt
        return original(plan)

    return dataclasses.replace(stage, run=run)

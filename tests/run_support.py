"""Helpers of the ``run`` and ``batch`` tests: folders as bytes, stage executions counted."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from streamer import api
from streamer.api import page_notes, stages

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
IMPORT = FIXTURES / "import"
BATCH = FIXTURES / "batch"
CONFIG = BATCH / "streamer.yaml"  # the spells lane, by the rules engine
TRANSCRIPT = IMPORT / "bridge.txt"  # "Sel casts Feather Fall": one spell cast

# The lanes of the kinds with built-in rules: the default configuration's, with no model.
RULES_LANES = sorted(
    kind.default_lane
    for kind in api.default_registry()
    if kind.extraction is not None and kind.extraction.rules is not None
)

# Built like podcast captions: the speaker is named on the first cue of a turn only.
PODCAST = """\
1
00:00:01,000 --> 00:00:03,000
HOST: Welcome back to the show.

2
00:00:03,100 --> 00:00:05,000
Today we talk about dice.

3
00:00:05,200 --> 00:00:07,000
GUEST: Thanks for having me.

4
00:00:07,100 --> 00:00:09,000
I brought my lucky d20.

5
00:00:09,500 --> 00:00:11,000
It rolls a lot of ones.

6
00:00:20,000 --> 00:00:22,000
After the break, a listener question.
"""


def in_folder(tmp_path: Path, *names: str) -> Path:
    """Copy fixtures into ``tmp_path`` so the commands name them as a user would."""
    for name in names:
        shutil.copy(IMPORT / name, tmp_path / name)
    return tmp_path


def stage_counts(result: dict[str, Any], stage: str) -> dict[str, Any]:
    counts: dict[str, Any] = next(s["counts"] for s in result["stages"] if s["stage"] == stage)
    return counts


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
    extracted = api.extract(config, source, candidates)
    lanes = root / "lanes"
    api.normalize(config, source, candidates, lanes, warn=quiet)
    api.bundle(config, source, lanes, root / "bundle", warn=quiet)
    run_lanes = [lane.id for lane in config.lanes]
    api.report(
        root / "bundle",
        output=root / "bundle.html",
        glossary=config.normalization.glossary,
        rejections=lanes / "rejections.jsonl",
        run=page_notes.notes_of(config, run_lanes, extracted.lanes),
        source=source,
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

"""Builders for the extraction tests: a configuration pointing at the fake server, the
demo session, and answers that cite the units of the chunk they were asked about."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from tests.fake_openai import Reply, Request
from tests.support import REPO, Run

SESSION = REPO / "fixtures" / "demo" / "session.jsonl"
KEY_VARIABLE = "STREAMER_TEST_KEY"


class Sleeps:
    """The backoff's sleep, recorded instead of slept (the ``sleeps`` fixture)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def write_config(
    root: Path,
    base_url: str,
    *,
    lanes: list[dict[str, Any]] | None = None,
    max_units: int = 4,
    overlap_units: int = 0,
    **extraction: Any,
) -> Path:
    settings: dict[str, Any] = {"base_url": base_url, "model": "fake-model", **extraction}
    config = {
        "pipeline": {
            "lanes": lanes or [{"id": "spells", "artifact_kind": "dnd/spell-casts"}],
            "chunking": {"max_units": max_units, "overlap_units": overlap_units},
            "extraction": settings,
        }
    }
    path = root / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def spell_answer(request: Request, spell: str = "Fireball") -> str:
    """A valid spell-casts answer citing the chunk's first unit."""
    unit = request.first_unit
    return json.dumps(
        {
            "records": [
                {
                    "spell": spell,
                    "caster": None,
                    "source_refs": [{"start_unit_id": unit, "end_unit_id": unit}],
                }
            ]
        }
    )


def cites_first_unit(request: Request) -> Reply:
    return Reply(content=spell_answer(request))


def candidates(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def first_units(session: Path = SESSION, max_units: int = 4) -> list[str]:
    """The first unit of each chunk of the demo session (chunks of ``max_units``, no
    overlap): what identifies a chunk's request in the fake server's log."""
    ids = [json.loads(line)["unit_id"] for line in session.read_text().splitlines()[1:]]
    return ids[::max_units]


def session_prefix(path: Path, unit_count: int) -> Path:
    """The first ``unit_count`` units of the demo session, as a document of its own."""
    lines = SESSION.read_text().splitlines()
    header = json.loads(lines[0])
    del header["semantic_digest"]
    path.write_text("\n".join([json.dumps(header), *lines[1 : 1 + unit_count]]) + "\n")
    return path


def run_cli_env(args: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """``python -m streamer`` in a subprocess, with ``env`` added to the environment."""
    completed = subprocess.run(
        [sys.executable, "-m", "streamer", *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return Run(completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace"))

"""The CRD3 profile: real table talk, the four CRD3 episodes of ``shared/data/crd3``.

The episodes (CC BY-SA 4.0, never copied into the repository) are imported with the real
command, ``python -m streamer import crd3 EPISODE`` (one unit a turn), in name order; the
data set repeats their units, in order, to the target size, each with a fresh unit ID
(``benchmarks.profiles.unit_ids``: the position decides it), kind, text and metadata as
imported. When the episodes are absent the profile is skipped.

The folder: ``$STREAMER_SHARED_DIR/data/crd3`` when that variable is set, else
``../shared/data/crd3`` beside the repository (as the tests find it).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from benchmarks.profiles.unit_ids import DEFAULT_SEED, unit_id

REPO = Path(__file__).resolve().parent.parent.parent


def crd3_dir() -> Path:
    shared = os.environ.get("STREAMER_SHARED_DIR")
    return (Path(shared) if shared else REPO.parent / "shared") / "data" / "crd3"


def episodes() -> list[Path]:
    return sorted((crd3_dir() / "episodes").glob("*.json"))


def missing() -> str | None:
    if not episodes():
        return f"the CRD3 episodes are absent ({crd3_dir() / 'episodes'})"
    return None


@functools.cache
def imported_units() -> tuple[dict[str, Any], ...]:
    """The units of every episode as ``streamer import crd3`` writes them, without IDs
    (imported once a process; never modified)."""
    units: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-crd3-") as directory:
        for episode in episodes():
            target = Path(directory) / f"{episode.stem}.jsonl"
            command = [sys.executable, "-m", "streamer", "import", "crd3", str(episode)]
            subprocess.run([*command, "--output", str(target), "--quiet"], cwd=REPO, check=True)
            with open(target, "rb") as lines:
                lines.readline()  # the header
                for line in lines:
                    unit = orjson.loads(line)
                    unit.pop("source_ref", None)
                    del unit["unit_id"]
                    units.append(unit)
    return tuple(units)


def iter_units(seed: int = DEFAULT_SEED) -> Iterator[tuple[dict[str, Any], bool]]:
    """Endless ``(unit, False)``: the imported units over and over, with fresh IDs."""
    pool = imported_units()
    position = 0
    while True:
        for unit in pool:
            yield {"unit_id": unit_id(position, seed), **unit}, False
            position += 1

"""Helpers for the bundle, schema and validation tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import yaml

from tests.support import REPO, Case, Run, run_cli

DEMO = REPO / "fixtures" / "demo"


def bundle_args(case: Case, output: Path, *extra: str, source: str | None = None) -> list[str]:
    return [
        "bundle",
        "--config",
        str(case.config),
        "--source",
        source or str(case.source),
        "--lanes-dir",
        str(case.lanes_dir),
        "--output",
        str(output),
        *extra,
    ]


def run_bundle(case: Case, output: Path, *extra: str, stdin: bytes | None = None) -> Run:
    return run_cli(
        bundle_args(case, output, *extra, source="-" if stdin is not None else None), stdin=stdin
    )


def demo_case() -> Case:
    return Case(
        DEMO,
        DEMO / "streamer.yaml",
        DEMO / "session.jsonl",
        DEMO / "lanes",
        "demo-slayers-take",
        "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6",
    )


def bundle_files(folder: Path) -> dict[str, bytes]:
    """Every file of a bundle folder by relative path."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def receipt(run: Run) -> dict[str, Any]:
    assert run.status == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1, run.stdout
    document: dict[str, Any] = orjson.loads(lines[0])
    return document


def write_config(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path

"""The data sets of a run: reused when ``--keep`` left them, else generated; described
after their cases ran (what ``evidence`` published, whether both forms agreed)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from benchmarks.checks import same_bytes
from benchmarks.generate import FORMS, Dataset, format_size, generate
from benchmarks.measure import MiB
from benchmarks.runner import log


def dataset_for(
    profile: str, target: int, forms: Sequence[str], seed: int, data_dir: Path
) -> Dataset:
    root = data_dir / f"{profile}-{format_size(target)}-seed{seed}"
    if (root / "meta.json").exists():
        with contextlib.suppress(Exception):
            dataset = Dataset.load(root)
            if (
                dataset.target_bytes == target
                and dataset.profile == profile
                and set(forms) <= set(dataset.params.get("forms", ()))
                and all(dataset.source(form).exists() for form in forms)
            ):
                log(f"reusing {root}")
                return dataset
    shutil.rmtree(root, ignore_errors=True)
    need = int(target * 2.2) + 200 * MiB
    free = shutil.disk_usage(data_dir).free
    if free < need:
        raise SystemExit(f"bench: {format_size(target)} needs ~{need // MiB} MiB free disk")
    log(f"generating {profile} {format_size(target)} ({', '.join(FORMS)}) in {root}")
    dataset = generate(root, target, forms=FORMS, seed=seed, profile=profile)
    log(f"generated {dataset.units} units in {dataset.generate_seconds:.1f} s")
    return dataset


def describe_outputs(out: Path) -> dict[str, Any]:
    info: dict[str, Any] = {}
    present = [p for p in (out / f"evidence.{form}.json" for form in FORMS) if p.exists()]
    if present:
        document = orjson.loads(present[0].read_bytes())
        info["contexts"] = len(document["contexts"])
        info["published_units"] = sum(len(c["units"]) for c in document["contexts"])
        info["distinct_references"] = sum(len(c["references"]) for c in document["contexts"])
        info["output_bytes"] = present[0].stat().st_size
    if len(present) == 2:
        info["forms_identical"] = same_bytes(*present)
    return info

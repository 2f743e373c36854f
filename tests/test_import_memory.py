"""Peak memory of ``streamer import`` does not grow with the size of the transcript, in
every format: the inputs of the import benchmark (``benchmarks/import_bench.py``,
seeded) at ~1 MB and ~12 MB, each imported by a fresh ``python -m streamer`` spawned by
``benchmarks/launch.py`` (a small process, so that the peak RSS is the child's own; see
``tests/test_memory.py``). The writer's spool keeps up to 4 MiB in memory before it goes
to disk, which the tolerance allows for. No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks.transcripts import FORMATS, generate
from tests.support import peak_rss_of

SMALL = 1_000_000
LARGE = 12_000_000
TOLERANCE = 8 << 20


def peak_rss(case: str, source: Path, output: Path) -> int:
    report = output.with_suffix(".rusage.json")
    command = [sys.executable, "-m", "streamer", "import", case.split("-")[0], str(source)]
    command += ["--output", str(output), "--document-id", "memory", "--quiet"]
    return peak_rss_of(command, report)


@pytest.mark.parametrize("case", FORMATS)
def test_import_memory_does_not_grow_with_the_input(tmp_path: Path, case: str) -> None:
    small, small_units = generate(case, tmp_path, SMALL, 7)
    large, large_units = generate(case, tmp_path, LARGE, 7)
    assert large_units >= 9 * small_units
    small_peak = peak_rss(case, small, tmp_path / "small.jsonl")
    large_peak = peak_rss(case, large, tmp_path / "large.jsonl")
    with open(tmp_path / "large.jsonl", "rb") as lines:
        assert sum(1 for _ in lines) == large_units + 1  # the header, then every unit
    mib = 1 << 20
    assert abs(large_peak - small_peak) <= TOLERANCE, (
        f"{case}: peak RSS {small_peak / mib:.1f} MiB on {SMALL / 1e6:.0f} MB "
        f"but {large_peak / mib:.1f} MiB on {LARGE / 1e6:.0f} MB"
    )

"""Peak memory of ``streamer evidence`` does not grow with the size of the transcript.

Two transcripts, ~20 MB and ~200 MB, with the same references (same lanes, same records:
the generator places them among the first units, which both documents share), in both
forms. Each run is a fresh ``python -m streamer`` spawned by ``benchmarks/launch.py``, a
small process, so that the reported peak RSS is the child's own: a child forked directly
from pytest would report at least pytest's resident size (Linux keeps the high-water mark
across ``exec``). No timing is asserted.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from benchmarks.generate import Dataset, generate
from tests.support import peak_rss_of

SMALL = 20_000_000
LARGE = 200_000_000
REFERENCE_UNITS = 40_000  # both documents are longer: the references are the same
TOLERANCE = 8 << 20


@pytest.fixture(scope="module")
def datasets() -> Iterator[tuple[Dataset, Dataset]]:
    with tempfile.TemporaryDirectory(prefix="streamer-memory-") as directory:
        root = Path(directory)
        small = generate(root / "small", SMALL, reference_units=REFERENCE_UNITS)
        large = generate(root / "large", LARGE, reference_units=REFERENCE_UNITS)
        assert small.units > REFERENCE_UNITS
        yield small, large


def peak_rss(dataset: Dataset, form: str) -> tuple[int, bytes]:
    """Run ``streamer evidence`` on ``dataset`` in ``form``: its peak RSS and output."""
    output = dataset.root / f"evidence.{form}.json"
    report = dataset.root / f"rusage.{form}.json"
    command = [sys.executable, "-m", "streamer", "evidence", "--config", str(dataset.config)]
    command += ["--source", str(dataset.source(form)), "--lanes-dir", str(dataset.lanes_dir)]
    command += ["--output", str(output)]
    return peak_rss_of(command, report), output.read_bytes()


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_peak_memory_does_not_grow_with_the_input(
    datasets: tuple[Dataset, Dataset], form: str
) -> None:
    small, large = datasets
    assert large.sizes[form] >= 9 * small.sizes[form]
    small_peak, small_output = peak_rss(small, form)
    large_peak, large_output = peak_rss(large, form)
    # The same references publish the same contexts (only the digest differs).
    small_document, large_document = orjson.loads(small_output), orjson.loads(large_output)
    assert small_document["contexts"] == large_document["contexts"]
    assert small_document["contexts"], "the references must publish something"
    mib = 1 << 20
    assert abs(large_peak - small_peak) <= TOLERANCE, (
        f"{form}: peak RSS {small_peak / mib:.1f} MiB on {small.sizes[form] / 1e6:.0f} MB "
        f"but {large_peak / mib:.1f} MiB on {large.sizes[form] / 1e6:.0f} MB"
    )

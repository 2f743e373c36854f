"""Published bytes do not change: every document the committed fixtures and the CRD3
episodes publish (import, chunk, evidence, bundle) has the SHA-256 digest that the first
implementation published, recorded in ``tests/published-bytes.json`` (see
``tests/published_bytes.py``). The CRD3 part skips when ``../shared/data/crd3`` is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.published_bytes import CRD3, published_digests
from tests.support import invoke

RECORDED: dict[str, str] = json.loads(
    (Path(__file__).parent / "published-bytes.json").read_text(encoding="utf-8")
)


def in_this_process(*args: str | Path) -> bytes:
    """streamer run in this process (``tests.support.invoke``), its standard output."""
    run = invoke([str(arg) for arg in args])
    if run.status != 0:
        raise AssertionError(f"streamer {args[0]} failed: {run.stderr}")
    return run.stdout


def test_fixtures_publish_the_recorded_bytes(tmp_path: Path) -> None:
    digests = published_digests(tmp_path, crd3=False, streamer=in_this_process)
    assert len(digests) == 23
    assert digests == {name: RECORDED[name] for name in digests}


@pytest.mark.skipif(not CRD3.is_dir(), reason="the CRD3 sample (../shared/data/crd3) is absent")
def test_crd3_episodes_publish_the_recorded_bytes(tmp_path: Path) -> None:
    assert published_digests(tmp_path, streamer=in_this_process) == RECORDED

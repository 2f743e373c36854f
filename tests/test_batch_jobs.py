"""``streamer batch --jobs``: each session's run on the cores the batch leaves it, the bytes
of ``run --jobs 1``; ``session_jobs``, the rule that shares the cores."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamer import api
from streamer.api.batch_executors import session_jobs
from streamer.api.runs import report_path_of
from tests.bundle_support import CRD3_EPISODES
from tests.run_support import RULES_LANES, quiet, tree
from tests.support import invoke


@pytest.mark.parametrize(
    ("sessions", "workers", "cores", "expected"),
    [
        (1, 2, 2, 2),  # one session alone: both cores
        (2, 2, 2, 1),
        (5, 2, 2, 1),
        (3, 2, 8, 4),
        (3, 4, 8, 2),  # three at once on eight cores
        (9, 1, 8, 8),
        (4, 8, 2, 1),
        (1, 1, 200, 64),  # never more than --jobs takes
    ],
)
def test_session_jobs_shares_the_cores_among_the_sessions_at_once(
    sessions: int, workers: int, cores: int, expected: int
) -> None:
    assert session_jobs(sessions, workers, cores) == expected


def _published(folder: Path, document_ids: list[str]) -> dict[str, dict[str, bytes]]:
    return {
        document_id: {
            **tree(folder / document_id),
            "<report>": report_path_of(folder / document_id).read_bytes(),
        }
        for document_id in document_ids
    }


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("jobs", [None, 2])
def test_a_batch_with_jobs_publishes_what_run_publishes(tmp_path: Path, jobs: int | None) -> None:
    """One worker, so the default gives the session every core; ``--jobs 2``: two processes
    in the pool's worker, whatever the cores."""
    episode = CRD3_EPISODES[0]
    manifest = tmp_path / "sessions.csv"
    manifest.write_text(f"transcript,format\n{episode},crd3\n", encoding="utf-8")
    reference = tmp_path / "run" / episode.stem
    api.run(None, episode, "crd3", reference, lanes=RULES_LANES, warn=quiet)
    folder = tmp_path / "batch"
    result = api.batch(None, manifest, folder, workers=1, lanes=RULES_LANES, jobs=jobs)
    assert result.exit_status == 0, result.failures
    assert result.receipt()["ok"] == 1
    expected = _published(reference.parent, [episode.stem])
    assert _published(folder, [episode.stem]) == expected


def test_a_bad_jobs_fails_the_batch_before_any_session(tmp_path: Path) -> None:
    manifest = tmp_path / "sessions.csv"
    manifest.write_text("transcript\nmissing.txt\n", encoding="utf-8")
    result = invoke(
        ["batch", str(manifest), "--output-dir", "out", "--jobs", "0", "--quiet"], cwd=tmp_path
    )
    assert result.status == 2
    assert "--jobs must be a whole number from 1 to 64" in result.stderr
    assert not (tmp_path / "out").exists()

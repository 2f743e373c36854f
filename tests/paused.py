"""``python -m tests.paused POINT FIFO ARGS...``: ``streamer ARGS...``, stopped at POINT of its
publication until FIFO is opened for writing and closed. The tests that signal a run at
such a point start it with this (the product has no hook: the pause is patched in here).

The points:

* ``partial``: a single-file output's temporary file exists (created, not yet written);
* ``staged``: a bundle's staging folder is complete and flushed, before the swap;
* ``swap``: the interrupting signals are held, just before the bundle is moved into place.

Starting it as ``paused_streamer(POINT, FIFO, *ARGS)`` and opening the FIFO returns once
the run waits at the point.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO

import pytest

from streamer.cli.main import main
from streamer.output import bundle_publication, publication

POINTS = ("partial", "staged", "swap")


def wait_for(fifo: str) -> None:
    """Block until a writer has opened ``fifo`` and closed it."""
    with open(fifo, "rb") as wait:
        wait.read()


def pause_at(point: str, fifo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch the publication so that the run waits for ``fifo`` at ``point``."""
    if point == "partial":  # atomic_file starts writing its temporary file (*.partial)
        durable = publication._durable

        def before_writing(descriptor: int) -> AbstractContextManager[IO[bytes]]:
            if os.readlink(f"/proc/self/fd/{descriptor}").endswith(".partial"):
                wait_for(fifo)
            return durable(descriptor)

        monkeypatch.setattr(publication, "_durable", before_writing)
    elif point == "staged":  # the staged bundle's folders are flushed
        sync_folders = bundle_publication.StagedBundle.sync_folders

        def after_syncing(self: bundle_publication.StagedBundle) -> None:
            sync_folders(self)
            wait_for(fifo)

        monkeypatch.setattr(bundle_publication.StagedBundle, "sync_folders", after_syncing)
    else:  # the signals are held, where the swap checks for a pending one
        assert point == "swap", point
        pending = publication.interrupt_pending

        def before_checking() -> bool:
            wait_for(fifo)
            return pending()

        monkeypatch.setattr(bundle_publication, "interrupt_pending", before_checking)


def paused_streamer(point: str, fifo: Path, *args: str) -> list[str]:
    """The command line of ``streamer ARGS...`` paused at ``point`` until ``fifo`` opens."""
    assert point in POINTS, point
    return [sys.executable, "-m", "tests.paused", point, str(fifo), *args]


if __name__ == "__main__":
    point, fifo, *args = sys.argv[1:]
    pause_at(point, fifo, pytest.MonkeyPatch())
    main(args)

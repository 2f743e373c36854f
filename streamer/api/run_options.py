"""The keyword options the API's command functions share, declared once.

``chunk`` takes the ``ReadOptions``; ``project``, ``evidence`` and ``bundle`` take the
``RunOptions`` (the same, and the lanes of the run). Every key is optional; its default is
where it is used: ``source_batches`` (``buffer_size`` 128 KiB, ``batch_units`` 16384,
``jobs`` 1, ``progress`` none), ``effective_lanes`` (every configured lane) and
``read_lane_outputs`` (warnings printed on standard error).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict

from streamer.api.lanes import Warn, stderr_warning

# Called with (bytes of the source read so far, its size or None when unknown).
Progress = Callable[[int, "int | None"], None]


class ReadOptions(TypedDict, total=False):
    """How the source document is read."""

    buffer_size: int  # bytes asked of the source per read
    batch_units: int  # units a batch of the JSON form holds
    jobs: int  # processes that parse the source's blocks: this one and jobs - 1 workers
    progress: Progress | None  # called with (bytes read, total or None)


class RunOptions(ReadOptions, total=False):
    """How the source is read, and which lanes the run has."""

    lanes: Sequence[str] | None  # the --lane selection; None: every configured lane
    warn: Warn  # receives each warning, without the "streamer: warning: " prefix


def read_options(options: RunOptions) -> ReadOptions:
    """The options of ``options`` that say how the source is read."""
    keys = ReadOptions.__optional_keys__
    return {key: value for key, value in options.items() if key in keys}  # type: ignore[return-value]


def warning(options: RunOptions) -> Warn:
    return options.get("warn", stderr_warning)

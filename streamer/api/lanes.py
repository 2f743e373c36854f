"""The lanes of a run and their normalized outputs."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from streamer.api.outputs import NamedInput
from streamer.configuration import Configuration
from streamer.framework.errors import (
    ConfigurationError,
)
from streamer.framework.kinds.lane_outputs import LaneOutput, lane_output_path, read_lane_output

Warn = Callable[[str], None]


def stderr_warning(message: str) -> None:
    if sys.stderr is not None:  # closed (2>&-): the warning is lost, the run goes on
        print(f"streamer: warning: {message}", file=sys.stderr)


def effective_lanes(config: Configuration, selection: Sequence[str] | None) -> tuple[str, ...]:
    """The lanes of this run: all configured lanes, or the ``--lane`` selection."""
    configured = [lane.id for lane in config.lanes]
    if not selection:
        return tuple(configured)
    chosen: list[str] = []
    for lane_id in selection:
        lane_id = lane_id.strip()
        if lane_id not in configured:
            raise ConfigurationError(
                f"--lane {lane_id[:64]!r} is not a configured lane",
                hint="configured lanes: " + ", ".join(configured),
            )
        if lane_id not in chosen:
            chosen.append(lane_id)
    return tuple(chosen)


def lane_inputs(lanes_dir: str | os.PathLike[str], lane_ids: Sequence[str]) -> list[NamedInput]:
    """The lane output files of ``lane_ids``, named for messages, for the output checks."""
    directory = Path(lanes_dir)
    inputs: list[NamedInput] = [("--lanes-dir", directory)]
    for lane_id in lane_ids:
        path = lane_output_path(directory, lane_id)
        inputs.append((f"lane {lane_id} ({path.name})", path))
    return inputs


def read_lane_outputs(
    config: Configuration,
    lanes_dir: str | os.PathLike[str],
    lane_ids: Sequence[str],
    warn: Warn = stderr_warning,
) -> list[LaneOutput[Any]]:
    """Read and validate the normalized outputs of ``lane_ids``; a lane without a file
    completed without an output, which ``warn`` reports."""
    directory = Path(lanes_dir)
    if not directory.is_dir():
        raise ConfigurationError(
            f"lanes folder {directory.name} does not exist", hint="check --lanes-dir"
        )
    outputs: list[LaneOutput[Any]] = []
    for lane_id in lane_ids:
        path = lane_output_path(directory, lane_id)
        if not path.exists():
            warn(f"lane {lane_id} has no normalized output ({path.name}); it contributes nothing")
            continue
        outputs.append(read_lane_output(path, lane_id, config.lane(lane_id).kind))
    return outputs

"""The lanes of a run and their normalized outputs."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from streamer.api.output_destinations import NamedInput
from streamer.configuration import Configuration
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, LaneOutputError
from streamer.framework.kinds.lane_outputs import LaneOutput, lane_output_path, read_lane_output
from streamer.framework.regular_files import read_regular_file

# Written by ``streamer normalize`` beside its lane outputs only when the support check was
# off; ``bundle`` records it in the lane descriptors of its index (docs/normalization.md).
PROVENANCE_FILE = "normalization.json"

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
            f"lanes folder {shown_path(directory)} does not exist", hint="check --lanes-dir"
        )
    outputs: list[LaneOutput[Any]] = []
    for lane_id in lane_ids:
        path = lane_output_path(directory, lane_id)
        if not path.exists():
            warn(f"lane {lane_id} has no normalized output ({path.name}); it contributes nothing")
            continue
        outputs.append(read_lane_output(path, lane_id, config.lane(lane_id).kind))
    support = support_policy(directory)
    if support != "strict":
        outputs = [dataclasses.replace(output, support=support) for output in outputs]
    return outputs


def support_policy(lanes_dir: Path) -> str:
    """The support policy ``streamer normalize`` recorded in ``lanes_dir``: ``off`` when it
    wrote ``normalization.json`` (``{"support":"off"}``), else ``strict``."""
    path = lanes_dir / PROVENANCE_FILE
    if not path.exists():
        return "strict"
    where = f"{path.name} in --lanes-dir"
    try:
        data = orjson.loads(read_regular_file(path, 4096, where, LaneOutputError))
    except orjson.JSONDecodeError:
        data = None
    if data != {"support": "off"}:
        raise LaneOutputError(
            f"{where} is not what streamer normalize writes",
            hint='it is {"support":"off"}, written when the support check was off',
        )
    return "off"

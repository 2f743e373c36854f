"""What the page says of a run beside its records: each rules lane's note, and the kinds
the run did not extract, with what adds them (``notes_of``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from streamer.api.config import default_registry
from streamer.configuration import Configuration
from streamer.report import RunNotes

MODEL_FLAGS = "streamer run --model-url URL --model NAME"


def kinds_not_run(config: Configuration, lanes: Sequence[str]) -> tuple[str, ...]:
    """The default lanes of the installed kinds that are extracted and that ``lanes`` (of
    ``config``) leave out: what a model server, or another configuration, would add."""
    configured = {config.lane(lane_id).kind.name for lane_id in lanes}
    return tuple(
        kind.default_lane
        for kind in default_registry()
        if kind.extraction is not None and kind.name not in configured
    )


def notes_of(
    config: Configuration, lanes: Sequence[str], extracted: Sequence[Mapping[str, Any]]
) -> RunNotes:
    """What the page says of a run of ``lanes`` of ``config``: each lane's rules' note (from
    ``extracted``, the extraction receipt's lanes) and the kinds it did not run, with what
    adds them."""
    notes = {lane["lane_id"]: lane["note"] for lane in extracted if lane.get("note")}
    not_run = kinds_not_run(config, lanes)
    why = None
    if not_run:
        served = config.extraction.base_url is not None
        why = "not in the configuration" if served else f"they need a model server: {MODEL_FLAGS}"
    return RunNotes(notes, not_run, why)

"""What ``streamer run --estimate`` prints: a line for a person on a terminal, else (or
with ``--json``) one JSON line."""

from __future__ import annotations

import typer

from streamer.api.estimate import Estimate
from streamer.cli.receipts import print_receipt, stdout_is_terminal
from streamer.cli.time_left import spoken


def estimate_summary(found: Estimate) -> str:
    if not found.requests:
        return f"streamer: no model lane: {found.chunks} chunks, no request"
    counted = "counted by the server" if found.counted_by == "server" else "estimated"
    probe = ", ".join(f"{seconds:.1f} s" for seconds in found.probe_seconds)
    assert found.seconds is not None
    time_left = (
        "under a minute" if found.seconds < 60 else spoken(found.seconds).removesuffix(" left")
    )
    shape = (
        f"{found.chunks} chunks, {len(found.lanes)} model lanes in each"
        if found.combined
        else f"{found.chunks} chunks x {len(found.lanes)} model lanes"
    )
    return (
        f"streamer: {found.requests} requests ({shape}), {found.prompt_tokens:,} prompt tokens "
        f"({counted}); about {time_left} (probe: {probe})"
    )


def print_estimate(found: Estimate, *, as_json: bool) -> None:
    if as_json or not stdout_is_terminal():
        print_receipt(found)
    else:
        typer.echo(estimate_summary(found))

"""``streamer evidence``: publish the evidence-context document."""

from __future__ import annotations

from pathlib import Path

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


@app.command("evidence")
def evidence_command(
    config: Path = options.CONFIG,
    source: str = options.SOURCE,
    lanes_dir: Path = options.LANES_DIR,
    lane: list[str] = options.LANE,
    output: str = options.output("evidence-context.json"),
    jobs: int = options.JOBS,
    quiet: bool = options.QUIET,
) -> None:
    """Publish the evidence-context document for the allowlisted lanes."""
    configuration = api.load_config(config)
    with showing_progress(quiet) as progress:
        api.evidence(
            configuration,
            source,
            lanes_dir,
            lanes=lane,
            output=output,
            jobs=jobs,
            progress=progress,
        )

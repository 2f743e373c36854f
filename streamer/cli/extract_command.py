"""``streamer extract``: the raw candidates of each lane, one JSON receipt on stdout.

Exit status 4 (``ExitStatus.INCOMPLETE``) when a lane failed: its chunks could not be answered
after their retries, so it wrote no candidates file; the other lanes wrote theirs, the
receipt says which, and one error line per failed lane is printed on stderr.
"""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import StatusLine, on_terminal
from streamer.cli.receipts import print_receipt_and_failures


class ChunkProgressLine(StatusLine):
    """``streamer: extract spells 3/10, npcs 7/10`` redrawn on stderr (a terminal)."""

    def __init__(self) -> None:
        super().__init__()
        self._done: dict[str, tuple[int, int]] = {}

    def __call__(self, lane_id: str, done: int, total: int) -> None:
        self._done[lane_id] = (done, total)
        self.draw(
            "streamer: extract "
            + ", ".join(f"{lane} {d}/{t}" for lane, (d, t) in self._done.items())
        )


@app.command("extract")
def extract_command(
    config: Path = options.CONFIG,
    source: str = options.SOURCE,
    output_dir: Path = typer.Option(
        ..., "--output-dir", help="The folder for <lane_id>.jsonl candidates files."
    ),
    lane: list[str] = options.LANE,
    cache_dir: Path | None = typer.Option(
        None, "--cache-dir", help="The cache of validated answers (default OUTPUT_DIR/.cache)."
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="The glossary (YAML): its party gives the rules' casters "
        "(default pipeline.normalization.glossary).",
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Ask again for every chunk (the answers replace the cached)."
    ),
    quiet: bool = options.QUIET,
) -> None:
    """Extract each lane's raw candidates with a model server or the built-in rules."""
    configuration = api.load_config(config)
    with on_terminal(quiet, ChunkProgressLine) as progress:
        result = api.extract(
            configuration,
            source,
            output_dir,
            lanes=lane,
            cache_dir=cache_dir,
            no_cache=no_cache,
            glossary=glossary,
            progress=progress,
        )
    print_receipt_and_failures(result)

"""``streamer report``: the bundle as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import typer

from streamer import api
from streamer.cli.app import app


@app.command("report")
def report_command(
    bundle_dir: Path = typer.Argument(..., metavar="BUNDLE_DIR", help="The bundle folder."),
    output: str = typer.Option(
        "-", "--output", help="Where to write the HTML page; - (default) is stdout."
    ),
    title: str | None = typer.Option(
        None, "--title", help="The page's title (default: streamer report: DOCUMENT_ID)."
    ),
) -> None:
    """Write the bundle in BUNDLE_DIR as one self-contained HTML page: each lane's records,
    the evidence they cite, search and filters. It holds transcript text: keep it as the
    bundle."""
    api.report(bundle_dir, output=output, title=title)

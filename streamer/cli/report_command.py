"""``streamer report``: the bundle as one self-contained HTML page, or the campaign page
of a ``streamer batch`` output folder."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from streamer import api
from streamer.api.reviews import review_path
from streamer.cli.app import app
from streamer.cli.receipts import print_receipt
from streamer.cli.review_warning import stale_line
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError


@app.command("report")
def report_command(
    bundle_dir: Path | None = typer.Argument(
        None, metavar="[BUNDLE_DIR]", help="The bundle folder (not with --campaign)."
    ),
    output: str | None = typer.Option(
        None,
        "--output",
        help="Where to write the HTML page: a file, or - for stdout; default: stdout, "
        "unless it is a terminal (then say --output - to print it there).",
        show_default=False,
    ),
    title: str | None = typer.Option(
        None, "--title", help="The page's title (default: streamer report: DOCUMENT_ID)."
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="A glossary: its party names each speaker's character (default: the bundle's "
        "party-roster lane); with --campaign, its names identify NPCs across sessions.",
    ),
    rejections: Path | None = typer.Option(
        None,
        "--rejections",
        help="The rejections.jsonl of streamer normalize: rejected candidates counted per "
        "lane by reason.",
    ),
    source: Path | None = typer.Option(
        None,
        "--source",
        help="The bundle's source document, to place each record in the session on the "
        "timeline; default: BUNDLE_DIR.work/source.jsonl, the copy streamer run keeps, when "
        "it is there.",
        show_default=False,
    ),
    review: Path | None = typer.Option(
        None,
        "--review",
        metavar="FILE",
        help="The game master's review (streamer review); default: BUNDLE_DIR.review.json "
        "beside the bundle, when it is there. Rejected records are struck through.",
        show_default=False,
    ),
    canon: bool = typer.Option(
        False, "--canon", help="Mark the records the review has not accepted or rejected."
    ),
    audience: str = typer.Option(
        "game-master",
        "--audience",
        help="game-master: every record and unit (secrets marked); players: the page the "
        "players may see, without the glossary's secrets and the game master's lanes.",
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="The pipeline configuration: its lanes marked audience: game-master are left "
        "out of a players page.",
    ),
    campaign: Path | None = typer.Option(
        None,
        "--campaign",
        metavar="DIR",
        help="Write DIR/index.html, the campaign page of a streamer batch output folder "
        "(sessions, NPCs and spells across sessions, linked to the session reports); "
        "prints a JSON receipt.",
    ),
) -> None:
    """Write the bundle in BUNDLE_DIR as one self-contained HTML page: each lane's records,
    the evidence they cite, a timeline, search, filters and sorting. It holds transcript
    text: keep it as the bundle."""
    if campaign is not None:
        given = (bundle_dir, output, title, rejections, source, review, config)
        if any(value is not None for value in given):
            raise ConfigurationError(
                "--campaign takes no BUNDLE_DIR, --output, --title, --rejections or --source"
                + (", nor --config" if config is not None else ""),
                hint="the campaign page is DIR/index.html",
            )
        print_receipt(api.campaign(campaign, glossary=glossary))
        return
    if bundle_dir is None:
        raise ConfigurationError(
            "give a BUNDLE_DIR (or --campaign DIR)", hint="streamer report --help"
        )
    if output is None:
        if sys.stdout is not None and sys.stdout.isatty():
            raise ConfigurationError(
                "streamer report writes an HTML page, not text for a terminal",
                hint=f"write it to a file: --output {shown_path(str(bundle_dir).rstrip('/'))}"
                ".html (or --output - to print it here)",
            )
        output = "-"
    shown = api.report(
        bundle_dir,
        output=output,
        title=title,
        glossary=glossary,
        rejections=rejections,
        source=source,
        review=review,
        canon=canon,
        audience=audience,
        game_master_lanes=() if config is None else api.load_config(config).game_master_lanes(),
    )
    if shown.stale_reviews:
        where = review if review is not None else review_path(bundle_dir)
        typer.echo(stale_line(shown.stale_reviews, str(where)), err=True)

"""``streamer import``: a transcript in, a JSON Lines source document out."""

from __future__ import annotations

from enum import StrEnum

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress


class Format(StrEnum):
    crd3 = "crd3"
    whisperx = "whisperx"
    webvtt = "webvtt"
    srt = "srt"
    text = "text"


class UnitChoice(StrEnum):
    turn = "turn"
    line = "line"


@app.command("import")
def import_command(
    format_name: Format = typer.Argument(
        ...,
        metavar="FORMAT",
        help="The transcript's format, one of: " + ", ".join(Format) + ".",
        show_default=False,
    ),
    source: str = typer.Argument(
        ...,
        metavar="INPUT",
        help="The transcript file (or a FIFO such as <(zcat t.srt.gz)), or - for stdin.",
        show_default=False,
    ),
    document_id: str | None = typer.Option(
        None,
        "--document-id",
        help="The document ID; default: the input file name without its suffix "
        "(required for stdin and FIFOs).",
    ),
    output: str = options.output("the source document"),
    unit: UnitChoice | None = typer.Option(
        None, "--unit", help="crd3 only: one unit per turn (default) or per utterance line."
    ),
    speaker_prefix: bool = typer.Option(
        False,
        "--speaker-prefix",
        help="srt and webvtt: a leading 'Name:' in the cue text is the speaker.",
    ),
    dedupe_rolling: bool = typer.Option(
        False,
        "--dedupe-rolling",
        help="srt and webvtt: rolling captions (YouTube's, as yt-dlp saves them) give each "
        "phrase once, with the times of the cue that adds it.",
    ),
    quiet: bool = options.QUIET,
) -> None:
    """Import a transcript as a source document (JSON Lines: header, then one unit a line)."""
    with showing_progress(quiet) as progress:
        api.import_transcript(
            format_name.value,
            source,
            document_id=document_id,
            output=output,
            unit=None if unit is None else unit.value,
            speaker_prefix=speaker_prefix,
            dedupe_rolling=dedupe_rolling,
            progress=progress,
        )

"""``streamer import``: a transcript in, a JSON Lines source document out."""

from __future__ import annotations

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.progress import showing_progress
from streamer.framework.plugins.entry_points import PluginError
from streamer.importers.formats import FORMAT_ALIASES, FORMATS, TranscriptFormat


def _installed() -> tuple[TranscriptFormat, ...]:
    """The installed formats, for the help texts (read here, not through ``api``, to keep
    start-up light). A broken plugin leaves them out of the help only: a command then names
    it, in one error line."""
    try:
        return FORMATS.load_all()
    except PluginError:
        return ()


INSTALLED = _installed()
FORMAT_NAMES = (", ".join(fmt.name for fmt in INSTALLED) or "see docs/importing.md") + (
    " (also " + ", ".join(f"{alias} for {name}" for alias, name in FORMAT_ALIASES.items()) + ")"
)


def _taking(flag: str) -> str:
    return " and ".join(fmt.name for fmt in INSTALLED if getattr(fmt, flag)) or "no format"


def _units() -> str:
    takes = [
        f"{fmt.name}: {' or '.join(fmt.units)}, default {fmt.units[0]}"
        for fmt in INSTALLED
        if fmt.units
    ]
    return "; ".join(takes) or "no format takes it"


# The import options, taken by `streamer import` and `streamer run`.
UNIT: str | None = typer.Option(
    None, "--unit", help=f"What one source unit is, for the formats that say ({_units()})."
)
SPEAKER_PREFIX: bool = typer.Option(
    False,
    "--speaker-prefix",
    help=f"{_taking('speaker_prefix')}: a leading 'Name:' in the cue text is the speaker.",
)
SPEAKER_CARRY: float | None = typer.Option(
    None,
    "--speaker-carry",
    metavar="SECONDS",
    help=f"{_taking('speaker_prefix')} with --speaker-prefix: a cue without a label keeps "
    "the last label, unless the silence before it is longer than SECONDS (default: off).",
    show_default=False,
)
DEDUPE_ROLLING: bool = typer.Option(
    False,
    "--dedupe-rolling",
    help=f"{_taking('dedupe_rolling')}: rolling captions (YouTube's, as yt-dlp saves them) "
    "give each phrase once, with the times of the cue that adds it.",
)

FORMAT: str = typer.Argument(
    ...,
    metavar="FORMAT",
    help=f"The transcript's format, one of: {FORMAT_NAMES}.",
    show_default=False,
)


@app.command("import")
def import_command(
    format_name: str = FORMAT,
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
    unit: str | None = UNIT,
    speaker_prefix: bool = SPEAKER_PREFIX,
    speaker_carry: float | None = SPEAKER_CARRY,
    dedupe_rolling: bool = DEDUPE_ROLLING,
    quiet: bool = options.QUIET,
) -> None:
    """Import a transcript as a source document (JSON Lines: header, then one unit a line)."""
    with showing_progress(quiet) as progress:
        api.import_transcript(
            format_name,
            source,
            document_id=document_id,
            output=output,
            unit=unit,
            speaker_prefix=speaker_prefix,
            dedupe_rolling=dedupe_rolling,
            speaker_carry=speaker_carry,
            progress=progress,
        )

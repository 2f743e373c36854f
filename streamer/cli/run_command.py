"""``streamer run``: one transcript to a published bundle and its report."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from streamer import api
from streamer.cli import options
from streamer.cli.app import app
from streamer.cli.import_command import (
    DEDUPE_ROLLING,
    FORMAT_NAMES,
    SPEAKER_CARRY,
    SPEAKER_PREFIX,
    UNIT,
)
from streamer.cli.progress import showing_run_progress
from streamer.cli.receipts import print_result
from streamer.cli.summary import run_summary
from streamer.importers.formats import ImportOptions


@app.command("run")
def run_command(
    transcript: Path = typer.Argument(
        ...,
        metavar="TRANSCRIPT",
        help="The transcript file: .vtt, .srt, .txt, or CRD3 or WhisperX .json.",
        show_default=False,
    ),
    output: Path = typer.Option(
        ...,
        "--output",
        help="The bundle folder to publish; the report is DIR.html, the work folder DIR.work. "
        "Missing parent folders are made, as mkdir -p would (and removed again when the "
        "run publishes nothing).",
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="The YAML configuration (streamer init writes one); default: the built-in "
        "configuration (streamer config --show prints it): the rules lanes, and every "
        "lane when a model server is named.",
    ),
    format_name: str | None = typer.Option(
        None,
        "--format",
        help=f"The transcript's format, one of: {FORMAT_NAMES}; default: found from the "
        "file's name and, for .json, its content.",
        show_default=False,
    ),
    model_url: str | None = options.MODEL_URL,
    model: str | None = options.MODEL,
    document_id: str | None = typer.Option(
        None, "--document-id", help="The document ID; default: the transcript's file name stem."
    ),
    glossary: Path | None = options.GLOSSARY,
    lane: list[str] = options.LANE,
    unit: str | None = UNIT,
    speaker_prefix: bool = SPEAKER_PREFIX,
    speaker_carry: float | None = SPEAKER_CARRY,
    dedupe_rolling: bool = DEDUPE_ROLLING,
    force: bool = typer.Option(
        False, "--force", help="Replace an existing bundle and report not made by this run."
    ),
    clean: bool = typer.Option(
        False,
        "--clean",
        help="Remove the work folder DIR.work when the run ends (it holds a copy of the "
        "transcript, kept to resume and to skip unchanged stages).",
    ),
    jobs: int = options.RUN_JOBS,
    estimate: bool = typer.Option(
        False,
        "--estimate",
        help="Print what the model stage would cost (requests, prompt tokens, a time from "
        "two real requests) and exit, publishing nothing.",
    ),
    as_json: bool = options.JSON,
    quiet: bool = options.QUIET,
) -> None:
    """Import, extract, normalize, bundle and report one transcript, resuming from the
    work folder; ends with a short summary on a terminal, else (or with --json) one JSON
    receipt line.

    Without --config it uses the built-in configuration: the built-in rules (spell casts)
    with no model; with a model server (--model-url and --model, or OPENAI_BASE_URL and
    OPENAI_MODEL; OPENAI_API_KEY is sent when set) every kind's lane."""
    import_options = ImportOptions(
        unit=unit,
        speaker_prefix=speaker_prefix,
        dedupe_rolling=dedupe_rolling,
        speaker_carry=speaker_carry,
    )
    if estimate:  # the estimate's modules (asyncio, the server's client) only here
        from streamer.api.estimate import estimate_run
        from streamer.cli.estimate_summary import print_estimate

        found = estimate_run(
            config,
            transcript,
            format_name,
            lanes=lane,
            model_url=model_url,
            model=model,
            import_options=import_options,
            glossary=glossary,
        )
        print_estimate(found, as_json=as_json)
        return
    start = time.monotonic()
    with showing_run_progress(quiet) as progress:
        result = api.run(
            config,
            transcript,
            format_name,
            output,
            document_id=document_id,
            lanes=lane,
            force=force,
            progress=progress,
            model_url=model_url,
            model=model,
            import_options=import_options,
            clean=clean,
            glossary=glossary,
            jobs=jobs,
        )
    seconds = time.monotonic() - start
    print_result(result, lambda: run_summary(result, seconds), as_json=as_json)

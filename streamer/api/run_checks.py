"""What ``streamer run`` checks before any stage runs: the transcript and its format, the
configuration (its lanes, extraction and glossary), and that the bundle and the report
can be published. Each raises the usage error the user sees (``ConfigurationError``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from streamer.api.config import EffectiveConfig, effective_config, with_glossary
from streamer.api.extraction import check_extraction
from streamer.api.lanes import effective_lanes
from streamer.api.normalization import glossary_of
from streamer.api.stages import BUNDLE, REPORT, extracted_lanes
from streamer.api.transcripts import check_transcript_path
from streamer.api.work_folder import WorkFolder, tree_digest
from streamer.configuration import Configuration
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.importers.detection import detect_format
from streamer.importers.formats import FORMATS, ImportOptions, canonical_format, check_options
from streamer.normalization.glossary import party_of
from streamer.output.bundle_documents import INDEX_FILE
from streamer.output.bundle_publication import check_destination


def check_transcript(
    transcript: str | os.PathLike[str], format_name: str | None, options: ImportOptions
) -> tuple[Path, str]:
    """The transcript's path and its format (found when ``format_name`` is ``None``); the
    import options checked against it."""
    if format_name is not None:
        format_name = canonical_format(format_name)
        FORMATS.get(format_name)
    if os.fspath(transcript) == "-":
        raise ConfigurationError(
            "streamer run reads a transcript file, not standard input",
            hint="save the transcript to a file: a rerun resumes from it",
        )
    path = Path(transcript)
    given = shown_path(transcript)
    if not path.is_file() and not path.is_dir():
        raise ConfigurationError(
            f"transcript {given} does not exist or is not a file", hint="check TRANSCRIPT"
        )
    check_transcript_path(path, given, "transcript", "check TRANSCRIPT")
    if format_name is None:
        format_name = detect_format(transcript)
        check_options(format_name, options, read_as=f"{given}, read as {format_name}")
    else:
        check_options(format_name, options)
    return path, format_name


def checked_configuration(
    config_path: str | os.PathLike[str] | None,
    lanes: Sequence[str] | None,
    model_url: str | None,
    model: str | None,
    glossary: str | os.PathLike[str] | None = None,
) -> tuple[EffectiveConfig, tuple[str, ...]]:
    """The configuration of a run (or of each session of a batch) and its lanes, with the
    usage errors of its extraction and its glossary raised before any stage runs.
    ``glossary`` (``--glossary``) replaces the configuration's."""
    effective = with_glossary(effective_config(config_path, model_url, model), glossary)
    run_lanes = effective_lanes(effective.config, lanes)
    extracted = extracted_lanes(effective.config, run_lanes)
    if extracted:
        check_extraction(effective.config, lanes=extracted)
    check_glossary(effective.config)
    return effective, run_lanes


def check_glossary(config: Configuration) -> None:
    """The configured glossary is read and checked whole (its YAML, its names, its party)
    before any stage runs: a mistake in it would fail the run after the import, with a
    copy of the transcript."""
    glossary = config.normalization.glossary
    if glossary is None:
        return
    if not glossary.is_file():
        where = "" if config.path is None else f" in {shown_path(config.path)}"
        raise ConfigurationError(
            f"glossary {shown_path(glossary)} does not exist or is not a file",
            hint=f"check --glossary or pipeline.normalization.glossary{where} (relative to "
            "its folder)",
        )
    party_of(glossary_of(config, None))


def _owned(path: Path, work: WorkFolder, stage: str, name: str) -> bool:
    """Whether ``path`` holds exactly what this work folder's ``stage`` last made."""
    record = work.record(stage)
    return record is not None and tree_digest(path) == record.outputs.get(name)


def check_destinations(output: Path, report: Path, work: WorkFolder, *, force: bool) -> None:
    """Fail before any stage runs unless the bundle and the report can be published: a
    destination that exists is replaced only with ``force``, or when it is what this work
    folder published before (a rerun)."""
    check_destination(output, force=True, marker=INDEX_FILE)
    if os.path.lexists(output) and not force and not _owned(output, work, "bundle", BUNDLE):
        raise ConfigurationError(
            f"output {shown_path(output)} already exists", hint="use --force to replace it"
        )
    if not os.path.lexists(report):
        return
    if report.is_symlink() or not report.is_file():
        raise ConfigurationError(f"report {shown_path(report)} exists and is not a file")
    if not force and not _owned(report, work, "report", REPORT):
        raise ConfigurationError(
            f"report {shown_path(report)} already exists", hint="use --force to replace it"
        )

"""The manifest of ``streamer batch``: one session a row, CSV or JSON Lines.

Columns (CSV, with a header row) or members (JSON Lines, one object a line): ``transcript``
(a path, relative to the manifest's folder unless absolute), optionally ``format`` (default:
found as ``streamer run`` finds it), ``document_id`` (default: the transcript's file name
without its last suffix) and the import options ``unit``, ``speaker_prefix``,
``speaker_carry`` and ``dedupe_rolling`` (``true``/``false``; seconds), checked against the
row's format as ``streamer run`` checks them. The whole
manifest is checked before any session runs; a bad row fails with its row number, which
is its line number (the CSV header is row 1, as in a spreadsheet).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from streamer.api.transcripts import check_transcript_path
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, StreamerError
from streamer.framework.regular_files import MIB, read_regular_text
from streamer.importers.detection import detect_format
from streamer.importers.formats import FORMATS, ImportOptions, canonical_format, check_options

MANIFEST_MAX_BYTES = 16 * MIB  # read whole: about 100,000 sessions
OPTION_COLUMNS = ("unit", "speaker_prefix", "speaker_carry", "dedupe_rolling")
COLUMNS = ("transcript", "format", "document_id", *OPTION_COLUMNS)
REQUIRED = ("transcript",)
_YES = {"true", "yes", "1"}
_NO = {"false", "no", "0"}
RESERVED_SUFFIXES = (".work", ".html", ".jsonl")
_DOCUMENT_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Session:
    """One row of the manifest, checked."""

    row: int
    transcript: Path
    listed_as: str
    format_name: str
    document_id: str
    options: ImportOptions = field(default_factory=ImportOptions)
    # a transcript that cannot be read fails its session, not the batch: its exit status
    # and error line, recorded without running it
    failure: tuple[int, str] | None = None


def _rows_csv(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    for fields in reader:
        if not fields or all(not field.strip() for field in fields):
            continue
        if header is None:
            header = [field.strip() for field in fields]
            for name in header:
                if name not in COLUMNS:
                    raise ConfigurationError(
                        f"row {reader.line_num}: unknown column {quoted(name)}",
                        hint="columns: " + ", ".join(COLUMNS),
                    )
            for name in REQUIRED:
                if name not in header:
                    raise ConfigurationError(
                        f"row {reader.line_num}: the header has no {name} column",
                        hint="the first row names the columns: transcript[,format]...",
                    )
            continue
        if len(fields) != len(header):
            raise ConfigurationError(
                f"row {reader.line_num}: {len(fields)} fields, the header names {len(header)}"
            )
        yield (
            reader.line_num,
            {name: value for name, value in zip(header, fields, strict=True) if value != ""},
        )


def _rows_jsonl(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = msgspec.json.decode(line)
        except msgspec.DecodeError:
            raise ConfigurationError(f"row {number}: not a JSON object") from None
        if not isinstance(value, dict):
            raise ConfigurationError(f"row {number}: not a JSON object")
        for name in value:
            if name not in COLUMNS:
                raise ConfigurationError(
                    f"row {number}: unknown member {quoted(str(name))}",
                    hint="members: " + ", ".join(COLUMNS),
                )
        yield number, value


def _is_jsonl(path: Path, text: str) -> bool:
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        return True
    if path.suffix.lower() == ".csv":
        return False
    return text.lstrip().startswith("{")


def _flag(value: Any, row: int, name: str) -> bool:
    if type(value) is bool:
        return value
    if isinstance(value, str) and value.strip().lower() in _YES | _NO:
        return value.strip().lower() in _YES
    raise ConfigurationError(f"row {row}: $.{name} must be true or false")


def _seconds(value: Any, row: int, name: str) -> float:
    if type(value) in (int, float):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        raise ConfigurationError(f"row {row}: $.{name} must be a number of seconds") from None


def _import_options(row: int, values: dict[str, Any]) -> ImportOptions:
    """The import options of a row (its option columns; an empty cell is no option)."""
    unit = values.get("unit")
    if unit is not None and (not isinstance(unit, str) or not unit.strip()):
        raise ConfigurationError(f"row {row}: $.unit must be a non-empty string")
    carry = values.get("speaker_carry")
    return ImportOptions(
        unit=None if unit is None else unit.strip(),
        speaker_prefix=_flag(values.get("speaker_prefix", False), row, "speaker_prefix"),
        dedupe_rolling=_flag(values.get("dedupe_rolling", False), row, "dedupe_rolling"),
        speaker_carry=None if carry is None else _seconds(carry, row, "speaker_carry"),
    )


def _session(row: int, values: dict[str, Any], folder: Path) -> Session:
    for name in REQUIRED:
        if name not in values:
            raise ConfigurationError(f"row {row}: no {name}")
    for name, value in values.items():
        if name in OPTION_COLUMNS:
            continue  # checked by _import_options
        if not isinstance(value, str) or not value.strip():
            raise ConfigurationError(f"row {row}: $.{name} must be a non-empty string")
    listed = values["transcript"]
    transcript = Path(listed)
    if not transcript.is_absolute():
        transcript = folder / transcript
    options = _import_options(row, values)
    failure: tuple[int, str] | None = None
    format_name = ""
    read_as = ""
    if "format" in values:
        format_name = canonical_format(values["format"].strip())
        FORMATS.get(format_name, where=f"row {row}: ")
    try:
        check_transcript_path(
            transcript,
            shown_path(listed),
            "transcript",
            "relative paths are relative to the manifest's folder",
        )
        if not format_name:  # found as streamer run finds it
            try:
                format_name = detect_format(transcript)
            except StreamerError as error:
                error.hint = "give the row a format (the manifest's format column)"
                raise
            read_as = f"{shown_path(listed)}, read as {format_name}"
    except StreamerError as error:
        failure = (int(error.exit_status), error.one_line())
    try:
        if format_name:
            check_options(format_name, options, read_as=read_as)
    except ConfigurationError as error:
        raise ConfigurationError(f"row {row}: {error.message}", hint=error.hint) from None
    document_id = values.get("document_id", transcript.stem).strip()
    if not _DOCUMENT_ID.fullmatch(document_id) or document_id.endswith(RESERVED_SUFFIXES):
        raise ConfigurationError(
            f"row {row}: document ID {quoted(document_id)} cannot name a result folder",
            hint="letters, digits, '.', '_' and '-', not starting with '.' nor ending with "
            + ", ".join(RESERVED_SUFFIXES)
            + "; give a document_id",
        )
    return Session(row, transcript, listed, format_name, document_id, options, failure)


def read_manifest(path: str | os.PathLike[str]) -> tuple[Session, ...]:
    """Every session of the manifest at ``path``, checked; a ``ConfigurationError`` (exit
    status 2) names the first bad row."""
    manifest = Path(path)
    text = read_regular_text(
        manifest,
        MANIFEST_MAX_BYTES,
        f"manifest {shown_path(manifest)}",
        ConfigurationError,
        missing_hint="check MANIFEST",
        encoding="utf-8-sig",
    )
    rows = _rows_jsonl(text) if _is_jsonl(manifest, text) else _rows_csv(text)
    sessions: list[Session] = []
    seen: dict[str, int] = {}
    try:
        for row, values in rows:
            session = _session(row, values, manifest.parent)
            if session.document_id in seen:
                raise ConfigurationError(
                    f"row {row}: document ID {quoted(session.document_id)} is also row "
                    f"{seen[session.document_id]}'s",
                    hint="each session needs its own document_id",
                )
            seen[session.document_id] = row
            sessions.append(session)
    except ConfigurationError as error:
        raise ConfigurationError(
            f"manifest {shown_path(manifest)} {error.message}", hint=error.hint
        ) from None
    except csv.Error:
        raise ConfigurationError(f"manifest {shown_path(manifest)} is not valid CSV") from None
    if not sessions:
        raise ConfigurationError(
            f"manifest {shown_path(manifest)} lists no session",
            hint="one row a session: transcript[,format][,document_id]...",
        )
    return tuple(sessions)

"""``streamer import`` and ``streamer chunk``: transcripts in, source documents and
extraction chunks out."""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Unpack

from streamer.api.output_destinations import WriteTarget, config_input, publish_to, resolve_output
from streamer.api.run_options import Progress, ReadOptions
from streamer.api.sources import Source, open_source, without_cycle_collection
from streamer.configuration import Configuration
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import (
    ConfigurationError,
    SourceError,
)
from streamer.framework.source.reader import (
    DEFAULT_BUFFER_SIZE,
    SourceDocumentReader,
)
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.detection import detect_format
from streamer.importers.document import SpooledDocument, spool_document, write_document
from streamer.importers.formats import (
    FORMATS,
    ImportOptions,
    TranscriptFormat,
    canonical_format,
    check_options,
    read_transcript,
)
from streamer.output.extraction_chunks import SpooledChunks, spool_chunks
from streamer.output.publication import Destination


@dataclass(frozen=True)
class ImportResult:
    """What an import produced."""

    document_id: str
    semantic_digest: str
    unit_count: int


@dataclass(frozen=True)
class ChunkResult:
    """What a chunk run produced."""

    document_id: str
    semantic_digest: str
    unit_count: int
    chunk_count: int


def _reads_stdin(source: Source) -> bool:
    return isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-"


def default_document_id(source: Source) -> str:
    """The document ID of an import without ``--document-id``: the input file's name
    without its last suffix (``session.vtt`` -> ``session``). A stream, standard input or
    a file that is not a regular one (a FIFO such as ``<(zcat t.srt.gz)``) has no name
    that says what it holds: it needs ``--document-id``."""
    if not isinstance(source, (str, os.PathLike)) or _reads_stdin(source):
        raise ConfigurationError(
            "--document-id is required when the transcript is read from stdin",
            hint="name the document with --document-id ID",
        )
    path = Path(source)
    if path.exists() and not path.is_file():
        raise ConfigurationError(
            f"--document-id is required when INPUT ({shown_path(source)}) is not a regular file",
            hint="name the document with --document-id ID",
        )
    return path.stem


def check_transcript_path(
    path: Path,
    given: str,
    what: str = "input file",
    hint: str = "check INPUT, or use - for stdin",
) -> None:
    """A transcript file is read as a stream: a regular file, a FIFO (``<(zcat ...)``)
    or a character device will do; a folder, an empty file or a missing file will not,
    each said as such (``what``: how the messages name it; ``hint``: what to check)."""
    try:
        status = os.stat(path)
    except OSError:
        status = None
    mode = 0 if status is None else status.st_mode
    if stat.S_ISDIR(mode):
        raise ConfigurationError(
            f"{what} {given} is a folder, not a transcript file",
            hint="give one transcript file; for a folder of sessions, list them in a "
            "manifest for streamer batch",
        )
    if status is None or not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        raise ConfigurationError(f"{what} {given} does not exist or is not a file", hint=hint)
    if stat.S_ISREG(mode) and status.st_size == 0:
        raise SourceError(f"{what} {given} is empty (0 bytes)", hint="check the file")


def import_formats() -> tuple[TranscriptFormat, ...]:
    """Every installed transcript format (``streamer.formats`` plugins), by name."""
    return FORMATS.load_all()


# What a transcript without units lacks, by format.
_UNITS_OF = {"crd3": "turns", "whisperx": "segments", "webvtt": "cues", "srt": "cues"}


def no_units_error(format_name: str, label: str) -> SourceError:
    """The error of a transcript that gives no units (exit status 3)."""
    what = _UNITS_OF.get(format_name, "lines of text")
    return SourceError(
        f"no units: {label} is empty or has no {what}",
        hint=f"check the file, read as {format_name} (--format)",
    )


def import_transcript(
    format_name: str | None,
    source: Source,
    *,
    document_id: str | None = None,
    output: WriteTarget = "-",
    unit: str | None = None,
    speaker_prefix: bool = False,
    dedupe_rolling: bool = False,
    speaker_carry: float | None = None,
    progress: Progress | None = None,
    jobs: int = 1,
) -> ImportResult:
    """Import a transcript in ``format_name`` (an installed format: ``import_formats()``;
    ``None``: found from the file's name and content) as a JSON Lines source document
    written to ``output`` (a path, ``-`` or a stream). ``jobs``: the processes that read a
    regular file into a file, in a format that reads on several (``crd3``; the same bytes).

    The whole transcript is read, validated and digested before it is published: into the
    temporary file that replaces a path atomically (its header, which holds the digest,
    written last), or into a spool before the first byte of a stream; a failed import
    publishes nothing. A transcript that gives no units is an error (exit status 3).
    """
    options = ImportOptions(
        unit=unit,
        speaker_prefix=speaker_prefix,
        dedupe_rolling=dedupe_rolling,
        speaker_carry=speaker_carry,
    )
    if format_name is not None:
        format_name = canonical_format(format_name)
        check_options(format_name, options)
    if document_id is None:
        document_id = default_document_id(source)
    elif not document_id.strip():
        raise ConfigurationError("--document-id must not be empty")
    if not document_id:
        raise ConfigurationError(
            "the input file name gives an empty document ID", hint="use --document-id"
        )
    label = "stdin"
    read_as = ""
    if isinstance(source, (str, os.PathLike)) and not _reads_stdin(source):
        path = Path(source)
        label = shown_path(source)
        check_transcript_path(path, label)
        if format_name is None:
            format_name = detect_format(source)
            read_as = f"{label}, read as {format_name}"
    elif format_name is None:
        raise ConfigurationError(
            "the format of a transcript read from stdin must be given", hint="give its FORMAT"
        )
    destination = resolve_output(output, [("INPUT", source)])
    reading = _Reading(format_name, source, label, document_id, progress, options, read_as, jobs)
    if isinstance(destination, Destination) and not destination.stream:
        publish_to(destination, reading.write)  # a file: written in place, header last
        assert reading.result is not None
        return reading.result
    document = reading.spool()
    if document.unit_count == 0:
        document.close()
        raise no_units_error(format_name, label)
    try:
        publish_to(destination, document.write_to)
        return ImportResult(document.document_id, document.semantic_digest, document.unit_count)
    finally:
        document.close()


@dataclass
class _Reading:
    """One transcript to read, check and digest, as a spool or into a seekable file."""

    format_name: str
    source: Source
    label: str
    document_id: str
    progress: Progress | None
    options: ImportOptions
    read_as: str  # how the format was found ("bridge.json, read as crd3"), or ""
    jobs: int = 1
    result: ImportResult | None = None

    @contextlib.contextmanager
    def _utterances(self) -> Iterator[Iterator[SourceUnit]]:
        with open_source(self.source, self.progress) as stream, without_cycle_collection():
            try:
                yield read_transcript(self.format_name, stream, self.options, read_as=self.read_as)
            except SourceError as error:
                where = f"{self.format_name} {self.label}"
                raise SourceError(f"{where}: {error.message}", hint=error.hint) from None

    def _parallel(self, out: IO[bytes]) -> tuple[str, int] | None:
        """The document written by ``jobs`` processes (``TranscriptFormat.parallel``);
        ``None`` (``out`` emptied) when it is read as by one: always from a stream, and in
        a daemonic process (a Dask worker's), which may not start processes."""
        source = self.source
        if self.jobs < 2 or not isinstance(source, (str, os.PathLike)) or _reads_stdin(source):
            return None
        if multiprocessing.current_process().daemon:
            return None
        fmt = check_options(self.format_name, self.options)
        if fmt.parallel is None or not os.path.isfile(source):
            return None
        options = self.options
        if options.unit is None and fmt.units:
            options = dataclasses.replace(options, unit=fmt.units[0])
        with open_source(source, self.progress) as stream, without_cycle_collection():
            written = fmt.parallel(self.document_id, stream, options, self.jobs, out)
        if written is None:  # read again by one process, which raises its error, if any
            out.seek(0)
            out.truncate()
        return written

    def spool(self) -> SpooledDocument:
        with self._utterances() as utterances:
            return spool_document(self.document_id, utterances)

    def write(self, out: IO[bytes]) -> None:
        written = self._parallel(out)
        if written is None:
            with self._utterances() as utterances:
                written = write_document(self.document_id, utterances, out)
        digest, count = written
        if count == 0:  # raised before the file is published: nothing is
            raise no_units_error(self.format_name, self.label)
        self.result = ImportResult(self.document_id, digest, count)


def chunk(
    config: Configuration,
    source: Source,
    *,
    output: WriteTarget = "-",
    **options: Unpack[ReadOptions],
) -> ChunkResult:
    """Write the extraction chunks of a source document as JSON Lines to ``output``.

    Chunks follow ``pipeline.chunking`` and are cut by the framework's ``Chunker``, as the
    bundle's chunk map is. The source document is validated and its digest verified before
    the first output byte; a file is published atomically, so a failed run writes nothing.
    """
    destination = resolve_output(output, [("--source", source), *config_input(config.path)])
    with open_source(source, options.get("progress")) as stream:
        reader = SourceDocumentReader(
            stream, buffer_size=options.get("buffer_size", DEFAULT_BUFFER_SIZE)
        )
        chunks: SpooledChunks = spool_chunks(
            reader, config.chunking.max_units, config.chunking.overlap_units
        )
    try:
        identity = reader.identity
        publish_to(destination, chunks.write_to)
        return ChunkResult(
            identity.document_id, identity.semantic_digest, identity.unit_count, chunks.chunk_count
        )
    finally:
        chunks.close()

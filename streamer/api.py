"""The Python API: every command of the CLI is a thin layer over a function here.

from streamer import api

config = api.load_config("streamer.yaml")
result = api.evidence(config, "session.jsonl", "lanes/", output="evidence.json")
"""

from __future__ import annotations

import collections
import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from streamer.configuration import Configuration, load_configuration
from streamer.domain import dnd
from streamer.framework.artifact_kinds import ArtifactKindRegistry
from streamer.framework.chunk_bounds import ChunkBoundsTap
from streamer.framework.errors import ConfigurationError
from streamer.framework.evidence.projector import (
    ProjectedEvidence,
    check_sources,
    project_evidence,
)
from streamer.framework.evidence.request import build_evidence_request
from streamer.framework.lane_outputs import LaneOutput, lane_output_path, read_lane_output
from streamer.framework.safe_text import quoted
from streamer.framework.source_reader import (
    DEFAULT_BUFFER_SIZE,
    JSON_BATCH_UNITS,
    DocumentIdentity,
    SourceDocumentReader,
)
from streamer.framework.source_unit_batches import SourceUnit
from streamer.output import bundle_validation, schema_catalog
from streamer.output.bundle_documents import INDEX_FILE, write_bundle
from streamer.output.bundle_publication import check_destination, staged_bundle
from streamer.output.bundle_validation import BundleReport
from streamer.output.evidence_context import write_evidence_context
from streamer.output.publication import publish

Source = str | os.PathLike[str] | BinaryIO
Warn = Callable[[str], None]


def default_registry() -> ArtifactKindRegistry:
    """The registry with every artifact kind streamer ships (the D&D kinds, v1)."""
    registry = ArtifactKindRegistry()
    dnd.register(registry)
    return registry


def load_config(path: str | os.PathLike[str]) -> Configuration:
    return load_configuration(Path(path), default_registry())


def _stderr_warning(message: str) -> None:
    print(f"streamer: warning: {message}", file=sys.stderr)


Progress = Callable[[int, "int | None"], None]


class _CountingStream:
    """A binary stream that reports how many bytes were read through it."""

    def __init__(self, stream: BinaryIO, progress: Progress) -> None:
        self._stream: Any = stream
        self._progress = progress
        self._done = 0
        try:
            size = os.fstat(stream.fileno()).st_size
            self._total: int | None = size if size > 0 else None
        except (OSError, AttributeError, io.UnsupportedOperation):
            self._total = None

    def _count(self, size: int) -> None:
        self._done += size
        self._progress(self._done, self._total)

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._stream.read(size)
        self._count(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        size = int(self._stream.readinto(buffer))
        self._count(size)
        return size

    def readline(self, size: int = -1) -> bytes:
        data: bytes = self._stream.readline(size)
        self._count(len(data))
        return data

    def readable(self) -> bool:
        return True


@contextlib.contextmanager
def open_source(source: Source, progress: Progress | None = None) -> Iterator[BinaryIO]:
    """A binary stream for a path, ``-`` (standard input) or an already open stream;
    ``progress(bytes_read, total_or_None)`` is called as it is read, when given."""
    with _open_source(source) as stream:
        yield stream if progress is None else _CountingStream(stream, progress)  # type: ignore[misc]


@contextlib.contextmanager
def _open_source(source: Source) -> Iterator[BinaryIO]:
    if not isinstance(source, (str, os.PathLike)):
        yield source
        return
    if os.fspath(source) == "-":
        yield sys.stdin.buffer
        return
    path = Path(source)
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise ConfigurationError(
            f"source file {path.name} does not exist", hint="check --source, or use - for stdin"
        ) from None
    except OSError as error:
        raise ConfigurationError(
            f"source file {path.name} cannot be read ({error.strerror})"
        ) from None
    with stream:
        yield stream


@contextlib.contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector during a pass: a pass allocates millions of
    short-lived, acyclic objects, and holding a batch of them alive makes the collector
    rescan them again and again (measured: parsing took twice as long)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


Batches = Iterable[list[SourceUnit]]


@contextlib.contextmanager
def source_batches(
    source: Source,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    tap: Callable[[Batches], Batches] | None = None,
    batch_units: int = JSON_BATCH_UNITS,
    progress: Progress | None = None,
) -> Iterator[tuple[Batches, Callable[[], DocumentIdentity]]]:
    """The one pass over a source document: its validated units in batches (through
    ``tap`` when given) and the document's identity, available once they are exhausted."""
    with open_source(source, progress) as stream, _without_cycle_collection():
        reader = SourceDocumentReader(stream, buffer_size=buffer_size, batch_units=batch_units)
        batches = reader.batches()
        yield (batches if tap is None else tap(batches)), lambda: reader.identity


def check_output_destination(output: str | os.PathLike[str]) -> None:
    """Fail before reading anything when ``output`` cannot be written."""
    if os.fspath(output) == "-":
        return
    path = Path(output)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ConfigurationError(f"output {path.name} is a directory", hint="name a file")
    if not parent.is_dir():
        raise ConfigurationError(
            f"output folder for {path.name} does not exist", hint="create it first"
        )
    if not os.access(parent, os.W_OK):
        raise ConfigurationError(f"output folder for {path.name} is not writable")


def effective_lanes(config: Configuration, selection: Sequence[str] | None) -> tuple[str, ...]:
    """The lanes of this run: all configured lanes, or the ``--lane`` selection."""
    configured = [lane.id for lane in config.lanes]
    if not selection:
        return tuple(configured)
    chosen: list[str] = []
    for lane_id in selection:
        lane_id = lane_id.strip()
        if lane_id not in configured:
            raise ConfigurationError(
                f"--lane {lane_id[:64]!r} is not a configured lane",
                hint="configured lanes: " + ", ".join(configured),
            )
        if lane_id not in chosen:
            chosen.append(lane_id)
    return tuple(chosen)


def read_lane_outputs(
    config: Configuration,
    lanes_dir: str | os.PathLike[str],
    lane_ids: Sequence[str],
    warn: Warn = _stderr_warning,
) -> list[LaneOutput[Any]]:
    """Read and validate the normalized outputs of ``lane_ids``; a lane without a file
    completed without an output, which ``warn`` reports."""
    directory = Path(lanes_dir)
    if not directory.is_dir():
        raise ConfigurationError(
            f"lanes folder {directory.name} does not exist", hint="check --lanes-dir"
        )
    outputs: list[LaneOutput[Any]] = []
    for lane_id in lane_ids:
        path = lane_output_path(directory, lane_id)
        if not path.exists():
            warn(f"lane {lane_id} has no normalized output ({path.name}); it contributes nothing")
            continue
        outputs.append(read_lane_output(path, lane_id, config.lane(lane_id).kind))
    return outputs


@dataclass(frozen=True)
class EvidenceResult:
    """What an evidence run produced (also the basis of the bundle receipt)."""

    document_id: str
    semantic_digest: str
    unit_count: int
    contexts: int
    published_units: int
    references: int
    contributing_lanes: tuple[str, ...]


def project(
    config: Configuration,
    source: Source,
    lanes_dir: str | os.PathLike[str],
    *,
    lanes: Sequence[str] | None = None,
    warn: Warn = _stderr_warning,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    batch_units: int = JSON_BATCH_UNITS,
    progress: Progress | None = None,
) -> ProjectedEvidence:
    """Validate everything and project the evidence context; nothing is written.

    The caller owns the result and must ``close()`` it.
    """
    settings = config.evidence_context
    if settings is None or not settings.enabled:
        raise ConfigurationError(
            "evidence publication is not enabled in the configuration",
            hint="set output.options.evidence_context.enabled: true with a lanes allowlist",
        )
    run_lanes = effective_lanes(config, lanes)
    selected = [lane_id for lane_id in settings.lanes if lane_id in run_lanes]
    outputs = read_lane_outputs(config, lanes_dir, selected, warn)
    request = build_evidence_request(settings.lanes, settings.window_units, outputs)
    with source_batches(source, buffer_size, batch_units=batch_units, progress=progress) as (
        batches,
        identity_of,
    ):
        return project_evidence(request, batches, identity_of)


def evidence(
    config: Configuration,
    source: Source,
    lanes_dir: str | os.PathLike[str],
    *,
    lanes: Sequence[str] | None = None,
    output: str | os.PathLike[str] | IO[bytes] = "-",
    warn: Warn = _stderr_warning,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    batch_units: int = JSON_BATCH_UNITS,
    progress: Progress | None = None,
) -> EvidenceResult:
    """Publish the evidence-context document to ``output`` (a path, ``-`` or a stream).

    Every validation completes before the first output byte; a file is written to a
    temporary sibling and renamed into place, so a failed run writes nothing.
    """
    if isinstance(output, (str, os.PathLike)):
        check_output_destination(output)
    projection = project(
        config,
        source,
        lanes_dir,
        lanes=lanes,
        warn=warn,
        buffer_size=buffer_size,
        batch_units=batch_units,
        progress=progress,
    )
    try:
        if isinstance(output, (str, os.PathLike)):
            publish(os.fspath(output), lambda out: write_evidence_context(projection, out))
        else:
            write_evidence_context(projection, output)
        return summarize(projection)
    finally:
        projection.close()


def summarize(projection: ProjectedEvidence) -> EvidenceResult:
    identity = projection.identity
    lanes = sorted(
        {lane for context in projection.contexts for _, ids in context.references for lane in ids}
    )
    return EvidenceResult(
        identity.document_id,
        identity.semantic_digest,
        identity.unit_count,
        len(projection.contexts),
        sum(context.end_position - context.start_position + 1 for context in projection.contexts),
        sum(len(context.references) for context in projection.contexts),
        tuple(lanes),
    )


# ---------------------------------------------------------------------------------------
# Importing transcripts and cutting extraction chunks (issue 5): ``streamer import`` and
# ``streamer chunk``. Self-contained: its imports are here so that the section merges
# cleanly with others appended to this module.
# ---------------------------------------------------------------------------------------

from streamer.framework.errors import SourceError  # noqa: E402
from streamer.importers.document import SpooledDocument, spool_document  # noqa: E402
from streamer.importers.formats import read_utterances  # noqa: E402
from streamer.output.extraction_chunks import SpooledChunks, spool_chunks  # noqa: E402

WriteTarget = str | os.PathLike[str] | IO[bytes]


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


def _publish_to(output: WriteTarget, write: Callable[[IO[bytes]], None]) -> None:
    if isinstance(output, (str, os.PathLike)):
        publish(os.fspath(output), write)
    else:
        write(output)


def default_document_id(source: Source) -> str:
    """The document ID of an import without ``--document-id``: the input file's name
    without its last suffix (``session.vtt`` -> ``session``)."""
    if not isinstance(source, (str, os.PathLike)) or _reads_stdin(source):
        raise ConfigurationError(
            "--document-id is required when the transcript is read from stdin",
            hint="name the document with --document-id ID",
        )
    return Path(source).stem


def import_transcript(
    format_name: str,
    source: Source,
    *,
    document_id: str | None = None,
    output: WriteTarget = "-",
    unit: str | None = None,
    speaker_prefix: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Import a transcript (``crd3``, ``whisperx``, ``webvtt``, ``srt`` or ``text``) as a
    JSON Lines source document written to ``output`` (a path, ``-`` or a stream).

    The whole transcript is read, validated and digested into a spool before the first
    output byte; a file is published atomically, so a failed import writes nothing.
    """
    if document_id is None:
        document_id = default_document_id(source)
    elif not document_id.strip():
        raise ConfigurationError("--document-id must not be empty")
    if not document_id:
        raise ConfigurationError(
            "the input file name gives an empty document ID", hint="use --document-id"
        )
    if isinstance(output, (str, os.PathLike)):
        check_output_destination(output)
    label = "stdin"
    if isinstance(source, (str, os.PathLike)) and not _reads_stdin(source):
        path = Path(source)
        label = path.name
        if not path.is_file():
            raise ConfigurationError(
                f"input file {path.name} does not exist or is not a file",
                hint="check INPUT, or use - for stdin",
            )
    with open_source(source, progress) as stream:
        utterances = read_utterances(format_name, stream, unit=unit, speaker_prefix=speaker_prefix)
        try:
            document: SpooledDocument = spool_document(document_id, utterances)
        except SourceError as error:
            raise SourceError(f"{format_name} {label}: {error.message}", hint=error.hint) from None
    try:
        _publish_to(output, document.write_to)
        return ImportResult(document.document_id, document.semantic_digest, document.unit_count)
    finally:
        document.close()


def chunk(
    config: Configuration,
    source: Source,
    *,
    output: WriteTarget = "-",
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    progress: Progress | None = None,
) -> ChunkResult:
    """Write the extraction chunks of a source document as JSON Lines to ``output``.

    Chunks follow ``pipeline.chunking`` and are cut by the framework's ``Chunker``, as the
    bundle's chunk map is. The source document is validated and its digest verified before
    the first output byte; a file is published atomically, so a failed run writes nothing.
    """
    if isinstance(output, (str, os.PathLike)):
        check_output_destination(output)
    with open_source(source, progress) as stream:
        reader = SourceDocumentReader(stream, buffer_size=buffer_size)
        chunks: SpooledChunks = spool_chunks(
            reader, config.chunking.max_units, config.chunking.overlap_units
        )
    try:
        identity = reader.identity
        _publish_to(output, chunks.write_to)
        return ChunkResult(
            identity.document_id, identity.semantic_digest, identity.unit_count, chunks.chunk_count
        )
    finally:
        chunks.close()


# -----------------------------------------------------------------------------------------
# The JSON bundle: ``streamer bundle``, ``streamer schema``, ``streamer validate``.
# -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BundleResult:
    """What ``bundle`` published; ``normalized_lanes`` counts lane payloads only."""

    document_id: str
    semantic_digest: str
    normalized_lanes: int
    files: tuple[str, ...]

    def receipt(self) -> dict[str, Any]:
        """The one-line JSON receipt ``streamer bundle`` prints on success."""
        return {
            "status": "ok",
            "document_id": self.document_id,
            "normalized_lanes": self.normalized_lanes,
            "files": list(self.files),
        }


def bundle(
    config: Configuration,
    source: Source,
    lanes_dir: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    lanes: Sequence[str] | None = None,
    force: bool = False,
    warn: Warn = _stderr_warning,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    progress: Progress | None = None,
) -> BundleResult:
    """Publish the JSON bundle folder ``output``: all of it, or nothing.

    Usage errors (``output`` exists and ``force`` is not set, an unknown lane) come before
    any input is read. The lane outputs of the run are read and validated, then one pass
    over the source validates and digests every unit, collects the chunk map and, when
    evidence publication is enabled, projects the evidence context. The bundle is
    assembled in a temporary sibling folder and renamed into place.
    """
    destination = Path(output)
    check_destination(destination, force=force, marker=INDEX_FILE)
    run_lanes = effective_lanes(config, lanes)
    outputs = read_lane_outputs(config, lanes_dir, run_lanes, warn=lambda _: None)
    found = {lane.lane_id for lane in outputs}
    missing = [lane_id for lane_id in run_lanes if lane_id not in found]
    if missing:
        warn("lanes without a normalized output, absent from the bundle: " + ", ".join(missing))
    settings = config.evidence_context
    request = None
    if settings is not None and settings.enabled:
        selected = [lane for lane in outputs if lane.lane_id in settings.lanes]
        request = build_evidence_request(settings.lanes, settings.window_units, selected)
    chunks = ChunkBoundsTap(config.chunking.max_units, config.chunking.overlap_units)
    projection: ProjectedEvidence | None = None
    try:
        with source_batches(source, buffer_size, chunks.tap, progress=progress) as (
            batches,
            identity_of,
        ):
            if request is None:
                collections.deque(batches, maxlen=0)
            else:
                projection = project_evidence(request, batches, identity_of)
            identity = identity_of()
        check_sources(((lane.lane_id, lane.source) for lane in outputs), identity)
        with staged_bundle(destination, force=force) as staged:
            write_bundle(staged, identity, outputs, chunks, projection)
    finally:
        if projection is not None:
            projection.close()
    return BundleResult(
        identity.document_id, identity.semantic_digest, len(outputs), tuple(sorted(staged.files))
    )


def schema_ids() -> tuple[str, ...]:
    """The ID of every JSON Schema streamer publishes, sorted."""
    return schema_catalog.schema_ids()


def schema(schema_id: str) -> bytes:
    """The JSON Schema (draft 2020-12) of ``schema_id``, as shipped."""
    data = schema_catalog.schema_bytes(schema_id)
    if data is None:
        raise ConfigurationError(
            f"unknown schema ID {quoted(schema_id)}",
            hint="'streamer schema --list' names every schema",
        )
    return data


def validate_bundle(folder: str | os.PathLike[str]) -> BundleReport:
    """Check the bundle in ``folder`` as a consumer would; the report lists every problem."""
    return bundle_validation.validate(Path(folder), default_registry())

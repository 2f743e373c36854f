"""``streamer normalize``: raw extraction candidates to normalized lane outputs (ADR-0009).

result = api.normalize(config, "session.jsonl", "candidates/", "lanes/")
"""

from __future__ import annotations

import collections
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from streamer.api.config import default_registry
from streamer.api.lanes import PROVENANCE_FILE, Warn, effective_lanes, stderr_warning
from streamer.api.run_options import Progress
from streamer.api.sources import Source, source_batches
from streamer.configuration import Configuration
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.lane_outputs import DocumentSource, lane_output_path
from streamer.framework.party import Party
from streamer.framework.source.accepted import AcceptedSource, UnitsByPosition
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.normalization.candidates import (
    CandidatesFile,
    candidates_path,
    read_candidates_file,
)
from streamer.normalization.glossary import PARTY, SESSIONS, Glossary, load_glossary, party_of
from streamer.normalization.lanes import (
    Canonical,
    Grounds,
    LaneCandidates,
    LaneResult,
    cited,
    expect,
    glossary_lane,
    glossary_records,
    normalize_lane,
    spec_of,
)
from streamer.normalization.rejections import rejection_lines
from streamer.normalization.source_index import AcceptedIndex, SourceIndexTap
from streamer.normalization.support import CitedRanges, Support
from streamer.output.bundle_publication import check_destination, staged_bundle

REJECTIONS_FILE = "rejections.jsonl"


@dataclass(frozen=True)
class NormalizeResult:
    """What ``normalize`` published: one ``LaneResult`` per lane of the run."""

    document_id: str
    semantic_digest: str
    lanes: tuple[LaneResult, ...]
    files: tuple[str, ...]

    def receipt(self) -> dict[str, Any]:
        """The one-line JSON receipt ``streamer normalize`` prints on success."""
        return {
            "status": "ok",
            "document_id": self.document_id,
            "lanes": [lane.receipt() for lane in self.lanes],
            "rejected": sum(sum(lane.rejected.values()) for lane in self.lanes),
            "files": list(self.files),
        }


def check_output_dir(destination: Path, *, force: bool) -> None:
    """Fail (a usage error, before any input is read) unless ``destination`` can be made:
    it must not exist, or with ``force`` be a former output (holding rejections.jsonl) or
    an empty folder."""
    check_destination(
        destination,
        force=force,
        marker=REJECTIONS_FILE,
        option="--output-dir",
        what="normalize output",
    )


def glossary_of(config: Configuration, glossary: str | os.PathLike[str] | None) -> Glossary:
    """``glossary`` (``--glossary``), else the configuration's, else none."""
    path = Path(glossary) if glossary is not None else config.normalization.glossary
    if path is None:
        return Glossary()
    specs = [spec for kind in default_registry() if (spec := kind.normalization) is not None]
    sections = {spec.glossary_section for spec in specs if spec.glossary_section is not None}
    aliases = {section for spec in specs for section in spec.glossary_aliases.values()}
    return load_glossary(path, sections, aliases)


def normalize(
    config: Configuration,
    source: Source | AcceptedSource,
    candidates_dir: str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    glossary: str | os.PathLike[str] | None = None,
    lanes: Sequence[str] | None = None,
    force: bool = False,
    warn: Warn = stderr_warning,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    progress: Progress | None = None,
) -> NormalizeResult:
    """Normalize the candidates of each lane of the run and publish the folder
    ``output_dir``: ``<lane_id>.json`` per lane with an output and ``rejections.jsonl``,
    all of it or nothing.

    Usage errors come first; then the glossary (its party-roster lane's records checked
    first, then its party: ``streamer.framework.party``) and every candidates file are
    read (a header naming another lane or kind fails the run), then the source document
    once, keeping only the chunks and unit positions the candidates name (and, for the
    support check, the cited units); the headers must name that document. Rejected
    candidates are reported through ``warn``, one line each. With
    ``pipeline.normalization.support: off`` nothing is checked against the cited text and
    ``normalization.json`` records it. ``source`` may be the ``AcceptedSource``
    ``streamer run`` imported: it is not validated again (the same bytes are published),
    and once extraction has indexed it, it is not read whole: only the blocks holding the
    cited units (``AcceptedIndex``).
    """
    destination = Path(output_dir)
    check_output_dir(destination, force=force)
    run_lanes = effective_lanes(config, lanes)
    directory = _candidates_folder(candidates_dir)
    terms = glossary_of(config, glossary)
    from_glossary = _glossary_records(config, run_lanes, terms)
    strict = config.normalization.support == "strict"
    read = _read_candidates(config, run_lanes, directory, terms, strict)
    grounds = _source_pass(config, source, read, terms, buffer_size, progress)
    _check_headers(read, grounds.document)
    session = grounds.document.document_id  # a session is a document
    from_glossary = _session_records(config, terms, from_glossary, session)
    results = [_lane_result(config, lane_id, read, grounds, from_glossary) for lane_id in run_lanes]
    files = _publish(destination, results, strict=strict, force=force)
    missing = [result.lane_id for result in results if result.output is None]
    if missing:
        warn("lanes without candidates, without a normalized output: " + ", ".join(missing))
    for result in results:
        for rejection in result.rejections:
            warn(rejection.warning())
    document = grounds.document
    return NormalizeResult(document.document_id, document.semantic_digest, tuple(results), files)


def _candidates_folder(candidates_dir: str | os.PathLike[str]) -> Path:
    directory = Path(candidates_dir)
    if not directory.is_dir():
        raise ConfigurationError(
            f"candidates folder {shown_path(directory)} does not exist",
            hint="check --candidates-dir",
        )
    return directory


def _glossary_records(
    config: Configuration, run_lanes: Sequence[str], terms: Glossary
) -> dict[str, tuple[Any, ...]]:
    """The records of the run's lanes that come from a glossary section (the party
    roster), checked by their kinds before anything else reads the section (the party's
    entries of every session; ``_lane_result`` keeps the session's)."""
    records: dict[str, tuple[Any, ...]] = {}
    for lane_id in run_lanes:
        kind = config.lane(lane_id).kind
        section = spec_of(kind).glossary_section
        if section is not None and section in terms.sections:
            entries = terms.sections[section]
            if section == PARTY:
                entries = [_without_sessions(entry) for entry in entries]
            records[lane_id] = glossary_records(kind, entries, "glossary")
    return records


def _without_sessions(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    return {key: value for key, value in entry.items() if key != SESSIONS}


def _session_records(
    config: Configuration,
    terms: Glossary,
    from_glossary: dict[str, tuple[Any, ...]],
    session: str,
) -> dict[str, tuple[Any, ...]]:
    """Of the glossary lanes' records (one per entry of their section), those that hold in
    ``session`` (the document ID): for the party, the entries without ``sessions`` and
    those naming it."""
    kept = dict(from_glossary)
    for lane_id, records in from_glossary.items():
        if spec_of(config.lane(lane_id).kind).glossary_section == PARTY:
            entries = terms.sections[PARTY]
            kept[lane_id] = tuple(
                record
                for record, entry in zip(records, entries, strict=True)
                if not isinstance(entry, dict) or session in entry.get(SESSIONS, [session])
            )
    return kept


@dataclass
class _Candidates:
    """The candidates files of the run's lanes, read before the source pass, and what the
    pass must keep for them."""

    files: dict[str, CandidatesFile] = field(default_factory=dict)
    cited_by_chunk: dict[str, list[str]] = field(default_factory=dict)
    """chunk ID -> the unit IDs its candidates cite (a list: ten thousand small sets would
    take twice the memory; an ID twice is looked up once)"""
    checks: dict[str, Support] = field(default_factory=dict)
    """lane -> its support check (strict support only)"""
    canonical: dict[str, dict[int, Canonical]] = field(default_factory=dict)
    """lane -> line -> what ``expect`` made"""


def _read_candidates(
    config: Configuration,
    run_lanes: Sequence[str],
    directory: Path,
    terms: Glossary,
    strict: bool,
) -> _Candidates:
    """Read each lane's candidates file; with ``strict`` support, tell each lane's check
    what its candidates claim."""
    party_of(terms)  # every entry checked first, whatever the sessions
    parties: dict[str, Party] = {}  # session (a document ID) -> its party
    read = _Candidates()
    for lane_id in run_lanes:
        kind = config.lane(lane_id).kind
        spec = spec_of(kind)
        path = candidates_path(directory, lane_id)
        if not spec.extracted:
            if path.exists():
                raise ConfigurationError(
                    f"lane {lane_id} has candidates ({path.name}), but its kind {kind.name} is "
                    "never extracted",
                    hint=f"its records come from the glossary's {spec.glossary_section} list",
                )
            continue
        if not path.exists():
            continue
        file = read.files[lane_id] = read_candidates_file(path, lane_id, kind.name)
        if strict:
            # the session is the document the header names (checked against the source later)
            session = file.header.document_id
            if session not in parties:
                parties[session] = party_of(terms, session)
            party = parties[session]
            check = read.checks[lane_id] = Support(spec, terms.names, party, terms.aliases)
            made = read.canonical[lane_id] = {}
        for raw in file.candidates:
            ids, chunk_id = cited(raw, kind)
            read.cited_by_chunk.setdefault(chunk_id, []).extend(ids)
            if strict:
                made[raw.line] = expect(raw, kind, terms.names, check, terms.aliases)
    return read


def _source_pass(
    config: Configuration,
    source: Source | AcceptedSource,
    read: _Candidates,
    terms: Glossary,
    buffer_size: int,
    progress: Progress | None,
) -> Grounds:
    """Read the source document once for the chunks and units the candidates name (and
    the ranges the support checks cite): from the blocks ``streamer run``'s extraction
    indexed (``_accepted_index``), else by a pass over the document."""
    cited_ranges = CitedRanges(read.checks.values())
    if isinstance(source, AcceptedSource) and source.index is not None and source.index.complete:
        index: SourceIndexTap | AcceptedIndex = _accepted_index(
            config, source, read, cited_ranges, progress
        )
        identity = source.identity
    else:
        index = SourceIndexTap(
            config.chunking.max_units,
            config.chunking.overlap_units,
            set(read.cited_by_chunk),
            {unit_id for ids in read.cited_by_chunk.values() for unit_id in ids},
            cited_ranges.ranges,
            cited_ranges.read,
        )
        with source_batches(source, index.tap, buffer_size=buffer_size, progress=progress) as (
            batches,
            identity_of,
        ):
            collections.deque(batches, maxlen=0)
            identity = identity_of()
    document = DocumentSource(identity.document_id, identity.semantic_digest)
    return Grounds(document, index.chunks, index.positions, terms.names, terms.aliases)


def _accepted_index(
    config: Configuration,
    source: AcceptedSource,
    read: _Candidates,
    cited_ranges: CitedRanges,
    progress: Progress | None,
) -> AcceptedIndex:
    """``streamer run``, after its extraction indexed the document: only the blocks that
    hold cited units are read. The positions found are left in the source's index, for
    the bundle stage after this one."""
    assert source.index is not None
    index = AcceptedIndex(
        UnitsByPosition(source),
        config.chunking.max_units,
        config.chunking.overlap_units,
        read.cited_by_chunk,
        cited_ranges.ranges,
        cited_ranges.read,
    )
    source.index.positions.update(index.positions)
    if progress is not None:
        size = source.path.stat().st_size
        progress(size, size)
    return index


def _check_headers(read: _Candidates, document: DocumentSource) -> None:
    """Every candidates file names the source document, in this version."""
    for file in read.files.values():
        where = f"candidates {file.name} line 1"
        if file.header.document_id != document.document_id:
            raise InputError(f"{where}: $.source.document_id does not name the source document")
        if file.header.semantic_digest != document.semantic_digest:
            raise InputError(
                f"{where}: $.source.semantic_digest is not the source document's",
                hint="the candidates were extracted from another version of the document",
            )


def _lane_result(
    config: Configuration,
    lane_id: str,
    read: _Candidates,
    grounds: Grounds,
    from_glossary: dict[str, tuple[Any, ...]],
) -> LaneResult:
    """One lane's result: from its candidates, else from its glossary section, else none."""
    kind = config.lane(lane_id).kind
    if lane_id in read.files:
        lane = LaneCandidates(
            lane_id,
            kind,
            read.files[lane_id],
            read.checks.get(lane_id),
            read.canonical.get(lane_id),
        )
        return normalize_lane(lane, grounds)
    if lane_id in from_glossary:
        return glossary_lane(lane_id, kind, from_glossary[lane_id], grounds.document)
    return LaneResult(lane_id)


def _publish(
    destination: Path, results: list[LaneResult], *, strict: bool, force: bool
) -> tuple[str, ...]:
    """Publish each lane's output and the rejections (all of it or nothing); the files."""
    rejections = [rejection for result in results for rejection in result.rejections]
    with staged_bundle(destination, force=force) as staged:
        for result in results:
            if result.output is not None:
                name = lane_output_path(Path(), result.lane_id).name
                staged.write(name, orjson.dumps(result.output.to_json()) + b"\n")
        staged.write(REJECTIONS_FILE, rejection_lines(rejections))
        if not strict:
            staged.write(PROVENANCE_FILE, orjson.dumps({"support": "off"}) + b"\n")
    return tuple(sorted(staged.files))

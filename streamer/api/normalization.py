"""``streamer normalize``: raw extraction candidates to normalized lane outputs (ADR-0009).

result = api.normalize(config, "session.jsonl", "candidates/", "lanes/")
"""

from __future__ import annotations

import collections
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from streamer.api.config import default_registry
from streamer.api.lanes import PROVENANCE_FILE, Warn, effective_lanes, stderr_warning
from streamer.api.run_options import Progress
from streamer.api.sources import Source, source_batches
from streamer.configuration import Configuration
from streamer.framework.errors import ConfigurationError, InputError
from streamer.framework.kinds.lane_outputs import DocumentSource, lane_output_path
from streamer.framework.safe_text import shown_path
from streamer.framework.source.accepted import AcceptedSource, UnitsByPosition
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.normalization.candidates import (
    CandidatesFile,
    candidates_path,
    read_candidates_file,
)
from streamer.normalization.glossary import PARTY, Glossary, load_glossary
from streamer.normalization.lanes import (
    Canonical,
    LaneResult,
    cited,
    expect,
    glossary_lane,
    normalize_lane,
    spec_of,
)
from streamer.normalization.names import name_key
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

    Usage errors come first; then the glossary and every candidates file are read (a
    header naming another lane or kind fails the run), then the source document once,
    keeping only the chunks and unit positions the candidates name (and, for the support
    check, the cited units); the headers must name that document. Rejected candidates are
    reported through ``warn``, one line each. With ``pipeline.normalization.support: off``
    nothing is checked against the cited text and ``normalization.json`` records it.
    ``source`` may be the ``AcceptedSource`` ``streamer run`` imported: it is not validated
    again (the same bytes are published), and once extraction has indexed it, it is not
    read whole: only the blocks holding the cited units (``AcceptedIndex``).
    """
    destination = Path(output_dir)
    check_output_dir(destination, force=force)
    run_lanes = effective_lanes(config, lanes)
    directory = Path(candidates_dir)
    if not directory.is_dir():
        raise ConfigurationError(
            f"candidates folder {shown_path(directory)} does not exist",
            hint="check --candidates-dir",
        )
    terms = glossary_of(config, glossary)
    strict = config.normalization.support == "strict"
    party = {  # malformed entries are the party-roster lane's errors, reported there
        name_key(entry["player"]): entry["character"]
        for entry in terms.sections.get(PARTY, [])
        if isinstance(entry, dict)
        and isinstance(entry.get("player"), str)
        and isinstance(entry.get("character"), str)
    }
    files: dict[str, CandidatesFile] = {}
    # chunk ID -> the unit IDs its candidates cite (a list: ten thousand small sets would
    # take twice the memory; an ID twice is looked up once)
    cited_by_chunk: dict[str, list[str]] = {}
    checks: dict[str, Support] = {}
    canonical: dict[str, dict[int, Canonical]] = {}  # lane -> line -> what expect made
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
        file = read_candidates_file(path, lane_id, kind.name)
        files[lane_id] = file
        if strict:
            checks[lane_id] = Support(spec, terms.names, party, terms.aliases)
        for raw in file.candidates:
            ids, chunk_id = cited(raw, kind)
            cited_by_chunk.setdefault(chunk_id, []).extend(ids)
            if strict:
                made = expect(raw, kind, terms.names, checks[lane_id], terms.aliases)
                canonical.setdefault(lane_id, {})[raw.line] = made
    cited_ranges = CitedRanges(checks.values())
    index: SourceIndexTap | AcceptedIndex
    if isinstance(source, AcceptedSource) and source.index is not None and source.index.complete:
        # streamer run, after its extraction indexed the document: only the blocks that
        # hold cited units are read
        index = AcceptedIndex(
            UnitsByPosition(source),
            config.chunking.max_units,
            config.chunking.overlap_units,
            cited_by_chunk,
            cited_ranges.ranges,
            cited_ranges.read,
        )
        identity = source.identity
        source.index.positions.update(index.positions)  # for the bundle stage after it
        if progress is not None:
            size = source.path.stat().st_size
            progress(size, size)
    else:
        index = SourceIndexTap(
            config.chunking.max_units,
            config.chunking.overlap_units,
            set(cited_by_chunk),
            {unit_id for ids in cited_by_chunk.values() for unit_id in ids},
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
    for file in files.values():
        where = f"candidates {file.name} line 1"
        if file.header.document_id != document.document_id:
            raise InputError(f"{where}: $.source.document_id does not name the source document")
        if file.header.semantic_digest != document.semantic_digest:
            raise InputError(
                f"{where}: $.source.semantic_digest is not the source document's",
                hint="the candidates were extracted from another version of the document",
            )
    results: list[LaneResult] = []
    for lane_id in run_lanes:
        kind = config.lane(lane_id).kind
        spec = spec_of(kind)
        if lane_id in files:
            results.append(
                normalize_lane(
                    lane_id,
                    kind,
                    files[lane_id],
                    document,
                    index.chunks,
                    index.positions,
                    terms.names,
                    checks.get(lane_id),
                    terms.aliases,
                    canonical.get(lane_id),
                )
            )
        elif spec.glossary_section is not None and spec.glossary_section in terms.sections:
            section = terms.sections[spec.glossary_section]
            results.append(glossary_lane(lane_id, kind, section, document, "glossary"))
        else:
            results.append(LaneResult(lane_id))
    rejections = [rejection for result in results for rejection in result.rejections]
    with staged_bundle(destination, force=force) as staged:
        for result in results:
            if result.output is not None:
                name = lane_output_path(Path(), result.lane_id).name
                staged.write(name, orjson.dumps(result.output.to_json()) + b"\n")
        staged.write(REJECTIONS_FILE, rejection_lines(rejections))
        if not strict:
            staged.write(PROVENANCE_FILE, orjson.dumps({"support": "off"}) + b"\n")
    missing = [result.lane_id for result in results if result.output is None]
    if missing:
        warn("lanes without candidates, without a normalized output: " + ", ".join(missing))
    for rejection in rejections:
        warn(rejection.warning())
    return NormalizeResult(
        document.document_id, document.semantic_digest, tuple(results), tuple(sorted(staged.files))
    )

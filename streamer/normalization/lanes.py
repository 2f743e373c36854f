"""One lane: its candidates (or its glossary section) to its normalized records.

For each well-formed candidate line, in turn: the record is validated against the kind's
model-facing record (``invalid_record``), its chunk and references are grounded
(``grounding``), and its name members and catalog members are canonicalized (glossary
aliases, then catalogs: ``NormalizationSpec``), and its textual members must be said by
its cited units (``support``, unless the policy is ``off``; ``unsupported``). The accepted
candidates are then collapsed under the kind's identity rule (``collapse``) and given
their IDs (``identifiers``). A span kind's record is checked once collapsed: it is
supported when one of its fragments says it, else each of its candidates is rejected. Nothing
is repaired and nothing is added: a member the candidate lacked is not there, a ``null``
stays ``null``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.lane_outputs import DocumentSource, LaneOutput
from streamer.framework.kinds.normalization_spec import Collapse, NormalizationSpec
from streamer.framework.kinds.records import RecordError
from streamer.framework.kinds.registry import ArtifactKind
from streamer.framework.names import name_key
from streamer.normalization import collapse
from streamer.normalization.candidates import CandidatesFile, RawCandidate
from streamer.normalization.collapse import Grounded, Group
from streamer.normalization.grounding import Problem, ground
from streamer.normalization.identifiers import record_id
from streamer.normalization.names import Names
from streamer.normalization.rejections import Reason, Rejection
from streamer.normalization.source_index import ChunkSpan
from streamer.normalization.support import Support

BOTH = "both"  # the receipt's count of the records every engine of a lane found


@dataclass
class LaneResult:
    """What normalization made of one lane."""

    lane_id: str
    candidates: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    rejections: list[Rejection] = field(default_factory=list)
    output: LaneOutput[Any] | None = None
    engines: dict[str, int] | None = None
    """A lane with several engines: the records each found, and ``both`` (all found)."""

    def receipt(self) -> dict[str, Any]:
        receipt = {
            "lane_id": self.lane_id,
            "candidates": self.candidates,
            "accepted": self.accepted,
            "rejected": dict(sorted(self.rejected.items())),
            "records": None if self.output is None else len(self.output.records),
        }
        if self.engines is not None:
            receipt["engines"] = self.engines
        return receipt


def spec_of(kind: ArtifactKind[Any]) -> NormalizationSpec:
    spec = kind.normalization
    if spec is None:
        raise ConfigurationError(f"artifact kind {kind.name} declares no normalization")
    return spec


def cited_ranges(raw: RawCandidate, kind: ArtifactKind[Any]) -> list[tuple[str, str]]:
    """The (start, end) unit IDs of a candidate line's references (read before the source
    pass; a reference that is not two strings is left to grounding)."""
    pairs = []
    for _, reference in _references(raw.record, kind):
        start, end = reference.get("start_unit_id"), reference.get("end_unit_id")
        if type(start) is str and type(end) is str:
            pairs.append((start, end))
    return pairs


def cited(raw: RawCandidate, kind: ArtifactKind[Any]) -> tuple[set[str], str]:
    """The unit IDs a candidate line may cite (read before the source pass) and its chunk."""
    ids: set[str] = set()
    for _, reference in _references(raw.record, kind):
        ids.update(value for value in reference.values() if type(value) is str)
    return ids, raw.chunk_id


def _references(record: Any, kind: ArtifactKind[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (path, reference) pairs of a record, read defensively (it may be invalid), from
    the kind's declared evidence member: one reference, or a list of them."""
    member = kind.evidence_member
    if type(record) is not dict or member is None:
        return []
    value = record.get(member)
    base = f"$.record.{member}"
    if kind.cites_one:
        return [(base, value)] if type(value) is dict else []
    if type(value) is not list:
        return []
    return [(f"{base}[{i}]", item) for i, item in enumerate(value) if type(item) is dict]


Canonical = tuple[dict[str, Any], dict[str, Any]] | Problem


@dataclass(frozen=True)
class LaneCandidates:
    """One lane's candidates, as ``normalize_lane`` takes them: its ``candidates`` file;
    ``support``: the lane's support check, ``None`` when the policy is ``off``;
    ``canonical``: what ``expect`` made of each candidate line (by line number), not made
    again (each taken out as it is used: its record is not held beside the accepted
    candidates)."""

    lane_id: str
    kind: ArtifactKind[Any]
    candidates: CandidatesFile
    support: Support | None = None
    canonical: dict[int, Canonical] | None = None


@dataclass(frozen=True)
class Grounds:
    """What every lane's candidates are grounded and canonicalized against: the source
    ``document``, the spans of the chunks the candidates name and the positions of the
    units they cite (the source pass's), the glossary's ``names`` and its alias
    sections (``aliases``: ``spells``)."""

    document: DocumentSource
    chunks: Mapping[str, ChunkSpan]
    positions: Mapping[str, int]
    names: Names
    aliases: Mapping[str, Names] = field(default_factory=dict)


def normalize_lane(lane: LaneCandidates, grounds: Grounds) -> LaneResult:
    """The lane's candidates validated, grounded, canonicalized, checked, collapsed and
    identified (the module's docstring); its output and its rejections."""
    lane_id, kind, candidates = lane.lane_id, lane.kind, lane.candidates
    support, canonical = lane.support, lane.canonical
    chunks, positions, source = grounds.chunks, grounds.positions, grounds.document
    spec = spec_of(kind)
    result = LaneResult(lane_id, candidates=candidates.read)
    rejections = list(candidates.rejections)
    accepted: list[Grounded] = []
    chunk_of: dict[int, str | None] = {}
    for raw in candidates.candidates:
        known = raw.chunk_id if raw.chunk_id in chunks else None
        chunk_of[raw.line] = known
        made = None if canonical is None else canonical.pop(raw.line, None)
        if made is None:
            made = canonical_members(raw, kind, spec, grounds.names, grounds.aliases)
        outcome = _accept(raw, kind, spec, chunks, positions, made)
        checked = support is not None and spec.collapse is not Collapse.SPAN
        if checked and not isinstance(outcome, Problem):
            assert support is not None
            member = support.unsupported(outcome.members, outcome.refs)
            if member is not None:
                outcome = Problem(Reason.UNSUPPORTED, f"$.record.{member}")
        if isinstance(outcome, Problem):
            rejections.append(
                Rejection(lane_id, raw.line, known, outcome.reason.value, outcome.path)
            )
        else:
            accepted.append(outcome)
    groups = _collapse(spec, accepted)
    result.accepted = len(accepted)
    if support is not None and spec.collapse is Collapse.SPAN:
        fragments = {item.line: item.refs for item in accepted}
        kept: list[Group] = []
        for group in groups:
            cited_by = [ref for line in group.lines for ref in fragments[line]]
            member = support.unsupported(group.members, cited_by)
            if member is None:
                kept.append(group)
                continue
            result.accepted -= len(group.lines)
            for line in group.lines:
                path = f"$.record.{member}"
                rejections.append(
                    Rejection(lane_id, line, chunk_of[line], Reason.UNSUPPORTED.value, path)
                )
        groups = kept
    rejections.sort(key=lambda rejection: rejection.line)
    result.rejections = rejections
    result.rejected = Counter(str(rejection.reason) for rejection in rejections)
    result.output = LaneOutput(lane_id, kind, source, _records(kind, spec, lane_id, source, groups))
    if candidates.header.engines:
        result.engines = found_by(candidates, groups)
    return result


def found_by(candidates: CandidatesFile, groups: list[Group]) -> dict[str, int]:
    """How many of the records (``groups``) each of the lane's engines found, and how
    many all of them found (``both``): an engine found a record when at least one of the
    candidates collapsed into it is that engine's."""
    engines = candidates.header.engines
    engine_of = {raw.line: raw.engine for raw in candidates.candidates}
    counts = dict.fromkeys((*engines, BOTH), 0)
    for group in groups:
        found = {engine_of[line] for line in group.lines}
        for engine in found:
            counts[str(engine)] += 1
        if len(found) == len(engines):
            counts[BOTH] += 1
    return counts


def canonical_members(
    raw: RawCandidate,
    kind: ArtifactKind[Any],
    spec: NormalizationSpec,
    names: Names,
    aliases: Mapping[str, Names],
) -> Canonical:
    """A candidate's record (as JSON) and its canonical members (evidence aside), or its
    ``invalid_record`` problem. Needs no source: the support check asks for it before the
    source pass."""
    try:
        parsed = kind.parse_model_record(raw.record, "$.record")
    except RecordError as error:
        return Problem(Reason.INVALID_RECORD, error.path)
    record = kind.record_to_json(parsed)
    members = {name: value for name, value in record.items() if name != kind.evidence_member}
    for name in spec.name_members:
        if members.get(name) is not None:
            members[name] = names.canonical(members[name])
    for name, catalog in spec.catalogs.items():
        if members.get(name) is not None:
            section = spec.glossary_aliases.get(name)
            if section is not None and section in aliases:
                members[name] = aliases[section].canonical(members[name])
            members[name] = catalog.canonical(members[name])
    return record, members


def expect(
    raw: RawCandidate,
    kind: ArtifactKind[Any],
    names: Names,
    support: Support,
    aliases: Mapping[str, Names] | None = None,
) -> Canonical:
    """Tell ``support`` what a candidate claims, before the source pass; what
    ``canonical_members`` made of it (``normalize_lane`` takes it, not to make it again)."""
    spec = spec_of(kind)
    canonical = canonical_members(raw, kind, spec, names, aliases or {})
    if not isinstance(canonical, Problem):
        record, members = canonical
        support.expect(members, cited_ranges(raw, kind), record)
    return canonical


def _accept(
    raw: RawCandidate,
    kind: ArtifactKind[Any],
    spec: NormalizationSpec,
    chunks: Mapping[str, ChunkSpan],
    positions: Mapping[str, int],
    canonical: Canonical,
) -> Grounded | Problem:
    if isinstance(canonical, Problem):
        return canonical
    record, members = canonical
    refs = ground(chunks.get(raw.chunk_id), _references(record, kind), positions)
    if isinstance(refs, Problem):
        return refs
    identity = {
        name: name_key(value) if name in spec.name_members and value is not None else value
        for name, value in members.items()
    }
    return Grounded(raw.line, members, collapse.distinct_refs(refs), identity)


def _collapse(spec: NormalizationSpec, accepted: list[Grounded]) -> list[Group]:
    if spec.collapse is Collapse.REGISTRY:
        member = spec.key_member
        assert member is not None
        return collapse.registry(accepted, lambda item: name_key(item.members[member]))
    if spec.collapse is Collapse.SPAN:
        return collapse.spans(accepted)
    if spec.collapse is Collapse.NEARBY:
        return collapse.nearby(accepted, spec.window_units, spec.optional_members)
    return collapse.occurrences(accepted)


def _records(
    kind: ArtifactKind[Any],
    spec: NormalizationSpec,
    lane_id: str,
    source: DocumentSource,
    groups: list[Group],
) -> tuple[Any, ...]:
    records: list[Any] = []
    seen: set[str] = set()
    for index, group in enumerate(groups):
        key: Any = group.identity
        position = None if spec.collapse is Collapse.REGISTRY else group.refs[0].start
        identifier = record_id(spec.id_prefix, source.document_id, lane_id, key, position)
        if identifier in seen:  # pragma: no cover - a SHA-256 prefix collision
            raise InputError(f"lane {lane_id}: two records have the same ID; please report it")
        seen.add(identifier)
        data: dict[str, Any] = {}
        for member in kind.records.members:
            if member == kind.id_member:
                data[member] = identifier
            elif member == kind.evidence_member:
                refs = [ref.to_json() for ref in group.refs]
                data[member] = refs[0] if kind.cites_one else refs
            else:
                data[member] = group.members[member]
        records.append(kind.parse_record(data, f"$.records[{index}]"))
    return tuple(records)


def glossary_records(kind: ArtifactKind[Any], section: list[Any], where: str) -> tuple[Any, ...]:
    """The records of a lane whose records are a glossary section (the party roster), in
    its order: each checked by the kind (a configuration error naming its JSON path)."""
    records = []
    for index, item in enumerate(section):
        try:
            records.append(kind.parse_record(item, f"$.{spec_of(kind).glossary_section}[{index}]"))
        except RecordError as error:
            raise ConfigurationError(f"{where}: {error.message}") from None
    return tuple(records)


def glossary_lane(
    lane_id: str, kind: ArtifactKind[Any], records: tuple[Any, ...], source: DocumentSource
) -> LaneResult:
    """The lane of ``glossary_records``."""
    return LaneResult(lane_id, output=LaneOutput(lane_id, kind, source, records))

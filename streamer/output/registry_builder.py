"""Building the campaign registry from the sessions' published bundles, one bundle at a
time (its index and the payloads of its lanes whose kind declares a ``campaign``:
``framework.kinds.campaign_spec``); the transcripts are never read.

Identity across sessions (``docs/campaign.md``): a name is first replaced by its glossary
name (``RegistryNames.canonical``: a name or alias the glossary lists), then compared by
its kind's name rule (``CampaignEntries.entry_key``); then, in a section declaring
``short_names``, a one-word name the glossary does not list joins the one multi-word name
(of the section, or of the party when the section is ``not_party``) whose first word it
is, when there is exactly one; a name joined to, or equal to, a party character's is no
entry of a ``not_party`` section. Everything is sorted, so the bytes do not depend on the
order of the sessions given nor on the order they finished in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec.structs
import orjson

from streamer.framework.errors.types import LaneOutputError
from streamer.framework.kinds.campaign_spec import CampaignCasts, CampaignEntries
from streamer.framework.kinds.lane_outputs import read_lane_output
from streamer.framework.kinds.registry import ArtifactKind, ArtifactKindRegistry
from streamer.framework.names import name_key
from streamer.output.campaign_registry import (
    PUBLISHED,
    REGISTRY_KIND,
    CampaignRegistry,
    Cast,
    Caster,
    CasterSession,
    CitedRecord,
    Entry,
    EntrySession,
    RegistrySession,
    SchemaIdentity,
    SessionLane,
    UnitRange,
)

INDEX_FILE = "index.json"  # streamer.output.bundle_documents.INDEX_FILE


@dataclass(frozen=True)
class RegistryNames:
    """The glossary as the registry reads it: ``canonical`` gives the glossary name of a
    name or alias (else the name), ``listed`` whether the glossary lists a name, and
    ``party`` every party character (of every session)."""

    canonical: Callable[[str], str] = str
    listed: Callable[[str], bool] = lambda name: False
    party: Collection[str] = ()


@dataclass(frozen=True)
class SessionSource:
    """A session of the manifest, in manifest order: its ID, its batch status, and its
    bundle folder and report file (names relative to the registry's folder) when they
    were published."""

    session_id: str
    status: str
    bundle: str | None
    report: str | None
    rejected: frozenset[str] = frozenset()  # the record IDs the game master's review rejects


@dataclass
class _Group:
    """The records of one name key of one section."""

    kinds: set[str] = field(default_factory=set)
    names: Counter[str] = field(default_factory=Counter)
    listed: bool = False
    # (position, lane_id) -> records
    cited: dict[tuple[int, str], list[CitedRecord]] = field(default_factory=dict)

    def absorb(self, other: _Group) -> None:
        """Take ``other``'s records (its names are only seen: the entry keeps its own)."""
        self.kinds |= other.kinds
        for where, records in other.cited.items():
            self.cited.setdefault(where, []).extend(records)


@dataclass
class _Found:
    """What one bundle gives, held until the whole bundle was read."""

    lanes: list[SessionLane] = field(default_factory=list)
    entries: list[tuple[CampaignEntries, str, str, str, CitedRecord]] = field(default_factory=list)
    casts: list[tuple[str, str, Cast]] = field(default_factory=list)


def _units(kind: ArtifactKind[Any], record: Any) -> list[UnitRange]:
    assert kind.evidence is not None
    return [(ref.start_unit_id, ref.end_unit_id) for ref in kind.evidence(record)]


def _read_bundle(
    folder: Path, registry: ArtifactKindRegistry, rejected: frozenset[str] = frozenset()
) -> _Found:
    """The entries and casts of the bundle in ``folder``, but the records ``rejected``
    (``LaneOutputError``, ``OSError`` or ``orjson.JSONDecodeError`` when it cannot be
    read)."""
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    found = _Found()
    for descriptor in sorted(index["lanes"], key=lambda lane: str(lane["lane_id"])):
        name, lane_id = descriptor["artifact_kind"], descriptor["lane_id"]
        found.lanes.append(SessionLane(lane_id, name, descriptor["record_count"]))
        if name not in registry:
            continue
        kind = registry.get(name, where="campaign registry")
        spec = kind.campaign
        if spec is None or kind.evidence is None or kind.id_member is None:
            continue
        output = read_lane_output(folder / descriptor["file"], lane_id, kind)
        for record in output.records:
            record_id = kind.record_id(record)
            assert record_id is not None
            if record_id in rejected:
                continue
            if isinstance(spec, CampaignEntries):
                value = getattr(record, spec.name_member)
                cited = CitedRecord(record_id, value, _units(kind, record))
                found.entries.append((spec, name, lane_id, value, cited))
            elif isinstance(spec, CampaignCasts):
                caster = getattr(record, spec.caster_member)
                if caster is not None:
                    spell = getattr(record, spec.spell_member)
                    found.casts.append(
                        (lane_id, caster, Cast(record_id, spell, _units(kind, record)))
                    )
    return found


class RegistryBuilder:
    """Accumulates sessions one bundle at a time, in manifest order; ``registry()`` gives
    the document."""

    def __init__(self, root: Path, kinds: ArtifactKindRegistry, names: RegistryNames) -> None:
        self._root = root
        self._kinds = kinds
        self._names = names
        self._sessions: list[RegistrySession] = []
        self._specs: dict[str, CampaignEntries] = {}
        self._groups: dict[tuple[str, str], _Group] = {}
        self._casters: dict[str, _Group] = {}
        self._casts: dict[str, dict[tuple[int, str], list[Cast]]] = {}
        self._known: dict[tuple[CampaignEntries | None, str], tuple[str, str, bool]] = {}

    def add(self, session: SessionSource) -> None:
        position = len(self._sessions) + 1
        status, found = session.status, None
        if session.bundle is not None:
            try:
                found = _read_bundle(self._root / session.bundle, self._kinds, session.rejected)
            except (OSError, LaneOutputError, orjson.JSONDecodeError, KeyError, TypeError):
                status = "unreadable"
            else:
                status = PUBLISHED
        published = found is not None
        self._sessions.append(
            RegistrySession(
                session.session_id,
                position,
                session.bundle if published else None,
                session.report if published else None,
                status,
                [] if found is None else found.lanes,
            )
        )
        if found is not None:
            self._add_found(position, found)

    def _identity(self, spec: CampaignEntries | None, value: str) -> tuple[str, str, bool]:
        """A name's glossary name, its key (the kind's name rule; a caster's name key) and
        whether the glossary lists it; each name worked out once (names recur)."""
        known = self._known.get((spec, value))
        if known is None:
            name = self._names.canonical(value)
            key = name_key(name) if spec is None else spec.entry_key(name)
            known = (name, key, self._names.listed(value) or self._names.listed(name))
            self._known[(spec, value)] = known
        return known

    def _add_found(self, position: int, found: _Found) -> None:
        for spec, kind_name, lane_id, value, cited in found.entries:
            self._specs.setdefault(spec.section, spec)
            name, key, listed = self._identity(spec, value)
            group = self._groups.setdefault((spec.section, key), _Group())
            group.kinds.add(kind_name)
            group.names[name] += 1
            group.listed = group.listed or listed
            group.cited.setdefault((position, lane_id), []).append(cited)
        for lane_id, caster, cast in found.casts:
            name, key, _ = self._identity(None, caster)
            self._casters.setdefault(key, _Group()).names[name] += 1
            self._casts.setdefault(key, {}).setdefault((position, lane_id), []).append(cast)

    def registry(self) -> CampaignRegistry:
        return CampaignRegistry(
            artifact_kind=REGISTRY_KIND,
            schema=SchemaIdentity(
                "streamer.campaign.registry", "streamer_campaign_registry_v1", "v1"
            ),
            sessions=list(self._sessions),
            entries=[entry for section in sorted(self._specs) for entry in self._section(section)],
            casters=self._caster_list(),
        )

    def _section(self, section: str) -> list[Entry]:
        spec = self._specs[section]
        groups = {key: group for (name, key), group in self._groups.items() if name == section}
        party = {spec.entry_key(self._names.canonical(c)) for c in self._names.party}
        if not spec.not_party:
            party = set()
        if spec.short_names:
            _join_short_names(groups, party)
        entries = [
            self._entry(spec, key, groups[key]) for key in sorted(groups) if key not in party
        ]
        return _with_ids(entries)

    def _entry(self, spec: CampaignEntries, key: str, group: _Group) -> Entry:
        order = sorted(group.cited)
        sessions = [
            EntrySession(
                self._sessions[position - 1].session_id,
                lane_id,
                sorted(group.cited[(position, lane_id)], key=lambda record: record.record_id),
            )
            for position, lane_id in order
        ]
        return Entry(
            entry_id=key,  # replaced by _with_ids
            artifact_kind=min(group.kinds),
            section=spec.section,
            name=_shown(group),
            seen_as=sorted({record.name for s in sessions for record in s.records}),
            first_session=sessions[0].session_id,
            last_session=sessions[-1].session_id,
            sessions=sessions,
        )

    def _caster_list(self) -> list[Caster]:
        casters = []
        for key in sorted(self._casters):
            casts = self._casts[key]
            casters.append(
                Caster(
                    caster=_shown(self._casters[key]),
                    seen_as=sorted(self._casters[key].names),
                    sessions=[
                        CasterSession(
                            self._sessions[position - 1].session_id,
                            lane_id,
                            sorted(casts[(position, lane_id)], key=lambda cast: cast.record_id),
                        )
                        for position, lane_id in sorted(casts)
                    ],
                )
            )
        return casters


def _shown(group: _Group) -> str:
    """The entry's name: the most frequent of its names (the glossary's, when it lists
    them, since every name was replaced by its glossary name), ties to the first sorted."""
    return min(group.names, key=lambda name: (-group.names[name], name))


def _join_short_names(groups: dict[str, _Group], party: set[str]) -> None:
    """Join each one-word key the glossary does not list into the one multi-word key (of
    ``groups`` or ``party``) whose first word it is; joined to a party key, it is
    dropped (``party`` then holds it)."""
    firsts: dict[str, set[str]] = {}
    for key in (*groups, *party):
        first, _, rest = key.partition(" ")
        if rest:
            firsts.setdefault(first, set()).add(key)
    for key in sorted(groups):
        group = groups[key]
        targets = firsts.get(key, set())
        if " " in key or group.listed or len(targets) != 1:
            continue
        (target,) = targets
        del groups[key]
        if target in party:
            party.add(key)
        else:
            groups[target].absorb(group)


_NOT_WORD = re.compile(r"[^\w]+")


def _with_ids(entries: Sequence[Entry]) -> list[Entry]:
    """Each entry with its ID, ``SECTION/SLUG`` (the name key, runs of other characters
    than letters and digits as one ``-``), then ``-2``, ``-3``... for a slug already taken
    (entries come sorted by key)."""
    taken: set[str] = set()
    named = []
    for entry in entries:
        slug = _NOT_WORD.sub("-", entry.entry_id).strip("-_") or "entry"
        entry_id, number = f"{entry.section}/{slug}", 1
        while entry_id in taken:
            number += 1
            entry_id = f"{entry.section}/{slug}-{number}"
        taken.add(entry_id)
        named.append(msgspec.structs.replace(entry, entry_id=entry_id))
    return named


def build_registry(
    root: Path,
    sessions: Iterable[SessionSource],
    kinds: ArtifactKindRegistry,
    names: RegistryNames | None = None,
) -> CampaignRegistry:
    """The registry of ``sessions`` (in manifest order) whose bundles are under ``root``."""
    builder = RegistryBuilder(root, kinds, names or RegistryNames())
    for session in sessions:
        builder.add(session)
    return builder.registry()

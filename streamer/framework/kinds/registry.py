"""Artifact kinds: the registry and its typed projection contract.

A kind is declared once: its record is one msgspec ``Struct`` (see ``kinds.records``),
from which come the record's parser and validator, encoder and JSON Schema, and the
model-facing record (the record without its application-owned ID member). A kind may
also have an ``EvidenceProjection``: the explicit, typed way its records expose their
direct source references. The framework never looks for reference-like fields in JSON;
a kind without a projection cannot be selected for evidence publication.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.campaign_spec import CampaignCasts, CampaignEntries, CampaignSpec
from streamer.framework.kinds.extraction_spec import ExtractionSpec
from streamer.framework.kinds.normalization_spec import Collapse, NormalizationSpec
from streamer.framework.kinds.records import RecordType
from streamer.framework.plugins.entry_points import KINDS_GROUP, Plugins
from streamer.framework.source.reference import SourceReference

R = TypeVar("R", bound=msgspec.Struct)
R_contra = TypeVar("R_contra", contravariant=True)

_KIND_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*\Z")


class EvidenceProjection(Protocol[R_contra]):
    """Returns the direct source references of one accepted record, in citation order."""

    def __call__(self, record: R_contra, /) -> Sequence[SourceReference]: ...


@dataclass(frozen=True)
class SchemaIdentity:
    """A published schema's identity: ``id``, ``name`` and ``version``."""

    id: str
    name: str
    version: str

    @classmethod
    def for_kind(cls, kind_name: str, version: str = "v1") -> SchemaIdentity:
        """``dnd/spell-casts`` -> ``notarius.dnd.spell_casts``, ``notarius_dnd_spell_casts_v1``."""
        family, _, kind = kind_name.partition("/")
        stem = f"{family}.{kind.replace('-', '_')}"
        return cls(f"notarius.{stem}", f"notarius_{stem.replace('.', '_')}_{version}", version)

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "version": self.version}


@dataclass(frozen=True)
class Cites:
    """The evidence projection of a kind: the references its ``member`` holds, one
    (``one``: a ``SourceReference``) or a list (``SourceReferences``)."""

    member: str
    one: bool

    def __call__(self, record: Any, /) -> Sequence[SourceReference]:
        value = getattr(record, self.member)
        return (value,) if self.one else tuple(value)


@dataclass(frozen=True)
class ArtifactKind(Generic[R]):
    """One artifact kind, declared once: record, labels, evidence member, prompt and rules
    (``extraction``), normalization.

    ``record`` is the record's ``Struct``; ``id_member`` names its application-owned ID
    member (assigned by normalization, never asked of a model), ``None`` for a kind whose
    records have no ID. ``evidence_member`` names the member citing the record's evidence:
    a ``SourceReference`` (the kind cites one ``source_ref``) or ``SourceReferences`` (a
    list). From it come the kind's typed ``evidence`` projection and, in normalization, how
    references are read and written and the default identity rule (``SPAN`` for one
    reference, else ``OCCURRENCE``); a kind without one (the party roster) exposes no
    evidence. ``normalization`` says how candidates of the kind become records
    (``kinds.normalization_spec``); a kind without one cannot be normalized.

    Every member name the declaration gives (``id_member``, ``evidence_member``, ``labels``,
    the normalization's name, catalog, key, textual and actor members) is checked against
    the record when the kind is declared: a wrong name is a ``ValueError`` at import time.
    ``broad``: its records cite broad ranges of the transcript (a scene spans many units),
    so the default configuration never allowlists its lane for evidence publication (the
    spec's policy: broad-range lanes contribute only when named expressly). ``campaign``:
    what its records give the campaign registry (``kinds.campaign_spec``), if anything.
    """

    name: str
    default_lane: str
    question: str
    record: type[R]
    id_member: str | None = None
    evidence_member: str | None = None
    version: str = "v1"
    extraction: ExtractionSpec | None = None
    normalization: NormalizationSpec | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    broad: bool = False
    campaign: CampaignSpec | None = None
    records: RecordType[R] = field(init=False, repr=False, compare=False)
    model_records: RecordType[Any] = field(init=False, repr=False, compare=False)
    evidence: EvidenceProjection[R] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _KIND_NAME.match(self.name):
            raise ValueError(f"artifact kind name {self.name!r} is not family/kind")
        records = RecordType(self.record)
        self._check_members(records)
        evidence = None
        if self.evidence_member is not None:
            cites = records.cites(self.evidence_member)
            if cites is None:
                raise ValueError(
                    f"artifact kind {self.name}: evidence_member {self.evidence_member!r} is "
                    "not a SourceReference or SourceReferences member"
                )
            evidence = Cites(self.evidence_member, cites == "one")
        object.__setattr__(self, "evidence", evidence)
        if self.normalization is not None:
            object.__setattr__(self, "normalization", self._resolved(self.normalization))
        if self.id_member is None:
            model = records
        else:
            model = records.without(self.id_member, f"{self.record.__name__}Candidate")
        object.__setattr__(self, "records", records)
        object.__setattr__(self, "model_records", model)

    def _check_members(self, records: RecordType[R]) -> None:
        spec = self.normalization
        named: list[tuple[str, str | None]] = [
            ("id_member", self.id_member),
            ("evidence_member", self.evidence_member),
            *(("labels", member) for member in self.labels),
        ]
        if spec is not None:
            named += [
                *(("name_members", member) for member in spec.name_members),
                *(("catalogs", member) for member in spec.catalogs),
                ("key_member", spec.key_member),
                *(("textual_members", member) for member in spec.textual_members),
            ]
        if isinstance(self.campaign, CampaignEntries):
            named.append(("campaign name_member", self.campaign.name_member))
        elif isinstance(self.campaign, CampaignCasts):
            named += [
                ("campaign caster_member", self.campaign.caster_member),
                ("campaign spell_member", self.campaign.spell_member),
            ]
        for what, member in named:
            if member is not None and member not in records.members:
                raise ValueError(
                    f"artifact kind {self.name}: {what} names {member!r}, "
                    f"not a member of {self.record.__name__}"
                )

    def _resolved(self, spec: NormalizationSpec) -> NormalizationSpec:
        """``spec`` with its identity rule derived from the evidence member when not given
        (``SPAN`` for one reference, else ``OCCURRENCE``), checked against it."""
        if not spec.extracted:
            return spec
        if self.evidence is None:
            raise ValueError(
                f"artifact kind {self.name}: an extracted kind cites evidence: "
                "evidence_member is required"
            )
        one = self.cites_one
        collapse = spec.collapse or (Collapse.SPAN if one else Collapse.OCCURRENCE)
        if (collapse is Collapse.SPAN) != one:
            raise ValueError(
                f"artifact kind {self.name}: the span rule is the rule of kinds citing one "
                "SourceReference, and theirs only"
            )
        return spec if collapse is spec.collapse else replace(spec, collapse=collapse)

    @property
    def cites_one(self) -> bool:
        """Whether a record cites one reference (its evidence member is a
        ``SourceReference``), not a list."""
        return isinstance(self.evidence, Cites) and self.evidence.one

    def label(self, member: str) -> str:
        """The label a person reads for ``member`` (``labels``, else ``source_ref`` ->
        ``Source ref``)."""
        label = self.labels.get(member)
        return label if label is not None else member.replace("_", " ").capitalize()

    @property
    def schema(self) -> SchemaIdentity:
        return SchemaIdentity.for_kind(self.name, self.version)

    @property
    def exposes_evidence(self) -> bool:
        return self.evidence is not None

    @property
    def model_record(self) -> type[msgspec.Struct]:
        """The model-facing record: the record without its ID member."""
        return self.model_records.struct

    def parse_record(self, data: Any, path: str) -> R:
        """Validate one record (raises ``RecordError``, naming ``path``)."""
        return self.records.parse(data, path)

    def parse_model_record(self, data: Any, path: str) -> Any:
        """Validate one model-facing record (raises ``RecordError``, naming ``path``)."""
        return self.model_records.parse(data, path)

    def record_to_json(self, record: Any) -> dict[str, Any]:
        """A record (or model-facing record) as JSON-ready data, in declaration order."""
        return self.records.to_json(record)

    def record_schema(self) -> dict[str, Any]:
        """The JSON Schema of one record (a reference is ``#/$defs/source_reference``)."""
        return self.records.schema()

    def model_record_schema(self) -> dict[str, Any]:
        """The JSON Schema of one model-facing record, with its ``$defs``."""
        return self.model_records.standalone_schema()

    def record_id(self, record: R) -> str | None:
        if self.id_member is None:
            return None
        value: str = getattr(record, self.id_member)
        return value


def _kinds_of(name: str, loaded: Any) -> tuple[ArtifactKind[Any], ...]:
    kinds = (loaded,) if isinstance(loaded, ArtifactKind) else tuple(loaded)
    for kind in kinds:
        if not isinstance(kind, ArtifactKind):
            raise TypeError(f"{type(kind).__name__} is not an ArtifactKind")
    return kinds


KIND_PLUGINS: Plugins[tuple[ArtifactKind[Any], ...]] = Plugins(
    KINDS_GROUP, "artifact kind family", _kinds_of
)
"""The ``streamer.kinds`` group: each entry point is one family, an ``ArtifactKind`` or a
sequence of them (``dnd = "streamer.domain.dnd.kinds:KINDS"``)."""


class ArtifactKindRegistry:
    """Artifact kinds by name. Domain packages register theirs; the framework reads.

    ``ArtifactKindRegistry.installed()`` holds every kind of every installed
    ``streamer.kinds`` plugin (streamer's own D&D kinds among them): the registry every
    command uses. Tests and libraries may ``register`` more into their own copy."""

    def __init__(self) -> None:
        self._kinds: dict[str, ArtifactKind[Any]] = {}

    @classmethod
    def installed(cls) -> ArtifactKindRegistry:
        """A new registry with the kinds of every installed ``streamer.kinds`` plugin."""
        registry = cls()
        for family in KIND_PLUGINS.load_all():
            for kind in family:
                registry.register(kind)
        return registry

    def register(self, kind: ArtifactKind[Any]) -> None:
        if kind.name in self._kinds:
            raise ConfigurationError(
                f"artifact kind {kind.name} is registered twice",
                hint="two installed streamer.kinds plugins declare it: uninstall one",
            )
        self._kinds[kind.name] = kind

    def get(self, name: str, *, where: str) -> ArtifactKind[Any]:
        kind = self._kinds.get(name)
        if kind is None:
            raise ConfigurationError(
                f"{where}: unknown artifact kind {quoted(name)}",
                hint="known kinds: " + ", ".join(sorted(self._kinds)),
            )
        return kind

    def __iter__(self) -> Iterator[ArtifactKind[Any]]:
        return iter(sorted(self._kinds.values(), key=lambda kind: kind.name))

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

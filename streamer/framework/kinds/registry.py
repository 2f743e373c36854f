"""Artifact kinds: the registry and its typed projection contract.

A kind declares how to validate one record of its lane payload into a typed record, and
(optionally) an ``EvidenceProjection``: the explicit, typed way its records expose their
direct source references. The framework never looks for reference-like fields in JSON;
a kind without a projection cannot be selected for evidence publication.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from streamer.framework.errors import ConfigurationError
from streamer.framework.kinds.extraction import ExtractionSpec
from streamer.framework.safe_text import quoted
from streamer.framework.source.reference import SourceReference

R = TypeVar("R")
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
class ArtifactKind(Generic[R]):
    """One artifact kind: its record contract and, optionally, its evidence projection."""

    name: str
    default_lane: str
    question: str
    parse_record: Callable[[Any, str], R]
    record_to_json: Callable[[R], dict[str, Any]]
    record_id: Callable[[R], str] | None = None
    evidence: EvidenceProjection[R] | None = None
    version: str = "v1"
    extraction: ExtractionSpec | None = None

    def __post_init__(self) -> None:
        if not _KIND_NAME.match(self.name):
            raise ValueError(f"artifact kind name {self.name!r} is not family/kind")

    @property
    def schema(self) -> SchemaIdentity:
        return SchemaIdentity.for_kind(self.name, self.version)

    @property
    def exposes_evidence(self) -> bool:
        return self.evidence is not None


class ArtifactKindRegistry:
    """Artifact kinds by name. Domain packages register theirs; the framework reads."""

    def __init__(self) -> None:
        self._kinds: dict[str, ArtifactKind[Any]] = {}

    def register(self, kind: ArtifactKind[Any]) -> None:
        if kind.name in self._kinds:
            raise ValueError(f"artifact kind {kind.name} is already registered")
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

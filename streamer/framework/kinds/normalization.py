"""How a kind's candidates become accepted records: the kind's normalization contract.

The normalization stage (``streamer.normalization``) is generic. What it needs to know
about a kind (which members are names, which member is canonicalized against which
catalog, how the kind's records are identified and collapsed, the prefix of their IDs,
and whether its records come from the auxiliary glossary instead of from extraction) a
kind declares here, once, in its ``ArtifactKind.normalization``.

The three identity rules (``docs/normalization.md`` states each in full):

- ``OCCURRENCE``: one record per occurrence. Candidates with equal canonical members whose
  references overlap by position (duplicates from overlapping chunks) become one record
  citing the union of their references; candidates citing distinct evidence are never
  merged.
- ``REGISTRY``: one record per entity: every candidate whose ``key_member`` has the same
  name key is one record citing all their references.
- ``SPAN``: a kind with one ``source_ref``. Candidates with equal canonical members whose
  ranges overlap become one record, which keeps one of their references unchanged (the
  one covering the most units; the earliest of those): references are never widened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class Collapse(StrEnum):
    """The identity rule of a kind's records."""

    OCCURRENCE = "occurrence"
    REGISTRY = "registry"
    SPAN = "span"


class Catalog(Protocol):
    """A catalog of known values: ``canonical(value)`` is the catalog's spelling of
    ``value``, or ``value`` itself, unchanged, when the catalog does not know it."""

    def canonical(self, value: str) -> str: ...


@dataclass(frozen=True)
class NormalizationSpec:
    """A kind's normalization: declared by its domain, applied by the generic stage.

    ``evidence_member`` is the member that cites evidence (``source_refs``, a list, or
    for ``SPAN`` kinds ``source_ref``, one reference). ``name_members`` are canonicalized
    through the glossary's aliases (``null`` stays ``null``). ``catalogs`` maps a member to
    the catalog its values are canonicalized against. ``key_member`` is the member whose
    name key identifies a ``REGISTRY`` record. ``glossary_section``: the kind is never
    extracted; its records are that section of the glossary.
    """

    id_prefix: str
    collapse: Collapse = Collapse.OCCURRENCE
    evidence_member: str | None = "source_refs"
    name_members: tuple[str, ...] = ()
    catalogs: Mapping[str, Catalog] = field(default_factory=dict)
    key_member: str | None = None
    glossary_section: str | None = None

    def __post_init__(self) -> None:
        if self.glossary_section is not None:
            return
        if self.evidence_member is None:
            raise ValueError("an extracted kind cites evidence: evidence_member is required")
        if (self.collapse is Collapse.REGISTRY) != (self.key_member is not None):
            raise ValueError("key_member is required by, and only by, the registry rule")
        if (self.collapse is Collapse.SPAN) != (self.evidence_member == "source_ref"):
            raise ValueError("the span rule is the rule of kinds citing one source_ref")

    @property
    def extracted(self) -> bool:
        """Whether the kind's records come from candidates (else from the glossary)."""
        return self.glossary_section is None

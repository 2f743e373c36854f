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
- ``NEARBY``: one record per event told more than once. Candidates equal but for their
  ``optional_members``, whose values are compatible (equal by identity, or one ``null``),
  citing units at most ``window_units`` apart, are one record citing the union of their
  references (a declaration and the game master's narration of the same cast).
- ``SPAN``: a kind with one ``source_ref``. Candidates with equal canonical members whose
  ranges overlap (fragments of one span cut by chunk boundaries) become one record citing
  their union: the range from the first fragment's start to the last one's end.

The support check (``streamer.normalization.support``): each member a kind names in
``textual_members`` must be said by the text of the units the candidate cites; each of
``actor_members`` (who acts: a caster, a combatant) may instead be the speaker of a cited
unit spoken in the first person. A catalog may give the spoken forms of its values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable


class Collapse(StrEnum):
    """The identity rule of a kind's records."""

    OCCURRENCE = "occurrence"
    REGISTRY = "registry"
    SPAN = "span"
    NEARBY = "nearby"


class Catalog(Protocol):
    """A catalog of known values: ``canonical(value)`` is the catalog's spelling of
    ``value``, or ``value`` itself, unchanged, when the catalog does not know it."""

    def canonical(self, value: str) -> str: ...


@runtime_checkable
class SpokenCatalog(Catalog, Protocol):
    """A catalog that also says how its values are spoken, for the support check:
    ``spoken_forms(value)`` are the names and aliases a speaker may use for the catalog's
    canonical ``value`` (``value`` itself among them)."""

    def spoken_forms(self, value: str) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class NormalizationSpec:
    """A kind's normalization: declared by its domain, applied by the generic stage.

    ``collapse`` is the identity rule; left out, the kind's evidence member decides it
    (``SPAN`` for a kind citing one reference, else ``OCCURRENCE``: ``ArtifactKind``
    fills it in). The member citing evidence is the kind's ``evidence_member``, declared
    once on the ``ArtifactKind``. ``name_members`` are canonicalized
    through the glossary's aliases (``null`` stays ``null``). ``catalogs`` maps a member to
    the catalog its values are canonicalized against; ``glossary_aliases`` maps a catalog
    member to the glossary's alias section read before its catalog (``spell`` ->
    ``spells``: the group's own names of spells). ``key_member`` is the member whose
    name key identifies a ``REGISTRY`` record. ``glossary_section``: the kind is never
    extracted; its records are that section of the glossary. ``textual_members`` are the
    model-produced members the support check looks for in the cited text (``null`` is never
    checked); ``actor_members`` (a subset) name who acts, and are also supported by the
    speaker of a cited unit spoken in the first person (``docs/normalization.md``).
    ``window_units`` and ``optional_members``: the ``NEARBY`` rule's window (in units, > 0)
    and the members a candidate may leave ``null`` and still be the same event.
    """

    id_prefix: str
    collapse: Collapse | None = None
    name_members: tuple[str, ...] = ()
    catalogs: Mapping[str, Catalog] = field(default_factory=dict)
    glossary_aliases: Mapping[str, str] = field(default_factory=dict)
    key_member: str | None = None
    glossary_section: str | None = None
    textual_members: tuple[str, ...] = ()
    actor_members: tuple[str, ...] = ()
    window_units: int = 0
    optional_members: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not set(self.actor_members) <= set(self.textual_members):
            raise ValueError("actor_members must be textual_members too")
        if self.glossary_section is not None:
            return
        if (self.collapse is Collapse.REGISTRY) != (self.key_member is not None):
            raise ValueError("key_member is required by, and only by, the registry rule")
        if (self.collapse is Collapse.NEARBY) != (self.window_units > 0):
            raise ValueError("window_units is required by, and only by, the nearby rule")

    @property
    def extracted(self) -> bool:
        """Whether the kind's records come from candidates (else from the glossary)."""
        return self.glossary_section is None

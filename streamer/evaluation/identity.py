"""What makes a published record and an expected one the same record: the kind's identity
members, equal after the kind's canonicalization.

The identity members of a kind are its record's members less its ID and evidence members;
a kind identified by the registry rule (one record per entity) has one, its
``key_member``. Each is canonicalized as normalization canonicalizes it, from the kind's
declaration (``NormalizationSpec``): a catalog member through the glossary's alias section
of it, then its catalog (``Firebolt`` -> ``Fire Bolt``); a name member through the
glossary's names (``Vex`` -> ``Vex'ahlia``). Catalog and name members are then compared by
their name key (case, apostrophe forms and spacing ignored); any other member exactly. A
name member that is a player of the glossary's party in the session (a first-person cast's
caster when the run had no glossary: the speaker as the transcript labels them) is compared
as the character they play (``LAURA`` -> ``Vex'ahlia``). The
nearby rule's ``optional_members`` (a cast's caster) are compatible when equal or when
either is ``null``: a record that does not say who cast is not wrong about it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from streamer.framework.kinds.normalization_spec import Collapse, NormalizationSpec
from streamer.framework.kinds.registry import ArtifactKind
from streamer.framework.names import name_key
from streamer.framework.party import Party


class NameCanon(Protocol):
    """The glossary's canonical name of a name or alias (the name itself when unknown)."""

    def canonical(self, name: str) -> str: ...


@dataclass(frozen=True)
class Canon:
    """The glossary's part in canonicalization: its ``names``, its alias sections by
    section name (``spells``) and the session's ``party``; empty without a glossary."""

    names: NameCanon | None = None
    aliases: Mapping[str, NameCanon] = field(default_factory=dict)
    party: Party = field(default_factory=Party)


@dataclass(frozen=True)
class Identity:
    """A record's identity: ``key`` (members compared exactly after canonicalization) and
    ``loose`` (the optional members, compatible when equal or either ``None``)."""

    key: tuple[Any, ...]
    loose: tuple[Any, ...]

    def compatible(self, other: Identity) -> bool:
        return self.key == other.key and all(
            mine is None or theirs is None or mine == theirs
            for mine, theirs in zip(self.loose, other.loose, strict=True)
        )


class KindIdentity:
    """The identity of the records of one kind."""

    def __init__(self, kind: ArtifactKind[Any], canon: Canon) -> None:
        self.kind = kind
        self.canon = canon
        self.spec = kind.normalization or NormalizationSpec(id_prefix="")
        skipped = {kind.id_member, kind.evidence_member}
        members = [name for name in kind.records.members if name not in skipped]
        if self.spec.collapse is Collapse.REGISTRY and self.spec.key_member is not None:
            members = [self.spec.key_member]
        loose = self.spec.optional_members if self.spec.collapse is Collapse.NEARBY else ()
        self.key_members = tuple(name for name in members if name not in loose)
        self.loose_members = tuple(name for name in members if name in loose)

    def value(self, member: str, value: Any) -> Any:
        """``value`` of ``member`` as compared."""
        if type(value) is not str:
            return value
        spec = self.spec
        catalog = spec.catalogs.get(member)
        if catalog is not None:
            section = self.canon.aliases.get(spec.glossary_aliases.get(member, ""))
            if section is not None:
                value = section.canonical(value)
            return name_key(catalog.canonical(value))
        if member in spec.name_members:
            value = self.canon.party.character_of(value) or value
            names = self.canon.names
            return name_key(value if names is None else names.canonical(value))
        return value

    def of(self, record: Any) -> Identity:
        return Identity(
            tuple(self.value(name, getattr(record, name)) for name in self.key_members),
            tuple(self.value(name, getattr(record, name)) for name in self.loose_members),
        )

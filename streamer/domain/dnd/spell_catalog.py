"""The SRD spell catalog: spell names canonicalized to the System Reference Document's.

The catalog is ``data/srd-spells.json`` (the 341 spell names of SRD 5.1 and 5.2, CC BY 4.0:
see ``data/srd-spells.NOTICE.md``). A spoken name matches a catalog name when their
*match keys* are equal: the name in Unicode NFKC, case-folded, with everything that is not
a letter or a digit removed (so case, spacing, punctuation and the form of an apostrophe
do not matter: ``fire ball``, ``FIREBALL`` and ``Fire-ball`` are all ``Fireball``). Before
the catalog, ``ALIASES`` maps what players say to the SRD's name: the named spells whose SRD
name is not their own name without the wizard's (``Bigby's Hand`` is ``Arcane Hand``).

Two rules make the catalog tolerant of how people say names (``canonical``):

- *small words*: when the match key finds nothing, the *loose key* is tried: the name's
  words without the articles ``a``, ``an`` and ``the`` (``Pass Without a Trace`` and ``the
  Fireball`` are ``Pass without Trace`` and ``Fireball``);
- *the wizard's name*: ``<Name>'s <SRD name>`` is the SRD name (``Tasha's Hideous
  Laughter`` is ``Hideous Laughter``, ``Leomund's Tiny Hut`` is ``Tiny Hut``), when the
  whole name matches nothing itself (``Hunter's Mark`` stays ``Hunter's Mark``).

A name none of these knows is returned exactly as spoken.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib import resources

import orjson

# What players say -> the SRD name. Keys are compared by their match key (above). A named
# spell whose SRD name is its own name without the wizard's needs no row: the possessive
# rule (``SpellCatalog.canonical``) reads it.
ALIASES: dict[str, str] = {
    "Bigby's Hand": "Arcane Hand",
    "Mordenkainen's Sword": "Arcane Sword",
    "Nystul's Magic Aura": "Arcanist's Magic Aura",
    "counter spell": "Counterspell",
    "Magic Aura": "Arcanist's Magic Aura",
}
ARTICLES = frozenset({"a", "an", "the"})
_APOSTROPHE = "'\u2019\u2018\u02bc"
_POSSESSIVE = re.compile(rf"\s*[^\s{_APOSTROPHE}]+[{_APOSTROPHE}]s\s+(?=\S)")


def match_key(name: str) -> str:
    """The name as the catalog compares it: NFKC, case-folded, letters and digits only."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(character for character in folded if character.isalnum())


def loose_key(name: str) -> str:
    """The match key of ``name``'s words without the articles ``a``, ``an`` and ``the``."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    words = "".join(c if c.isalnum() else " " for c in folded).split()
    return "".join(word for word in words if word not in ARTICLES)


def wizard_prefix(name: str) -> int:
    """The length of a leading ``<Name>'s `` in ``name`` (0 when there is none)."""
    found = _POSSESSIVE.match(name)
    return 0 if found is None else found.end()


def _catalog_names() -> list[str]:
    data = (resources.files("streamer.domain.dnd") / "data" / "srd-spells.json").read_bytes()
    return [entry["name"] for entry in orjson.loads(data)]


class SpellCatalog:
    """Canonical spell names: ``canonical("fire ball") == "Fireball"``."""

    def __init__(self, names: list[str], aliases: dict[str, str]) -> None:
        self.names = tuple(names)
        by_key: dict[str, str] = {}
        for name in names:
            if by_key.setdefault(match_key(name), name) != name:
                raise ValueError("two catalog names share a match key")
        for alias, target in aliases.items():
            if target not in names:
                raise ValueError("an alias names a spell the catalog lacks")
            if by_key.setdefault(match_key(alias), target) != target:
                raise ValueError("an alias shares a match key with another spell")
        by_loose: dict[str, str] = {}
        for form, target in [*((name, name) for name in names), *aliases.items()]:
            loose = loose_key(form)
            if by_loose.setdefault(loose, target) != target or by_key.get(loose, target) != target:
                raise ValueError("two spells share a loose key")
        self._by_key = by_key
        self._by_loose = by_loose
        spoken: dict[str, list[str]] = {name: [name] for name in names}
        for alias, target in aliases.items():
            spoken[target].append(alias)
        self._spoken = {name: tuple(forms) for name, forms in spoken.items()}

    def known(self, value: str) -> str | None:
        """The catalog's name of ``value`` (by match key, then loose key), or ``None``."""
        found = self._by_key.get(match_key(value))
        return found if found is not None else self._by_loose.get(loose_key(value))

    def canonical(self, value: str) -> str:
        found = self.known(value)
        if found is None:
            prefix = wizard_prefix(value)
            if prefix:
                found = self.known(value[prefix:])
        return value if found is None else found

    def spoken_forms(self, value: str) -> tuple[str, ...]:
        """What a speaker may say for the catalog name ``value``: the name, then its
        aliases (``Arcane Hand``: also ``Bigby's Hand``); a name the catalog lacks is
        spoken only as itself. (``Tasha's Hideous Laughter`` says ``Hideous Laughter``.)"""
        return self._spoken.get(value, (value,))


@cache
def srd_spells() -> SpellCatalog:
    """The shipped SRD catalog with ``ALIASES``."""
    return SpellCatalog(_catalog_names(), ALIASES)

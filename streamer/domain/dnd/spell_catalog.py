"""The SRD spell catalog: spell names canonicalized to the System Reference Document's.

The catalog is ``data/srd-spells.json`` (the 341 spell names of SRD 5.1 and 5.2, CC BY 4.0:
see ``data/srd-spells.NOTICE.md``). A spoken name matches a catalog name when their
*match keys* are equal: the name in Unicode NFKC, case-folded, with everything that is not
a letter or a digit removed (so case, spacing, punctuation and the form of an apostrophe
do not matter: ``fire ball``, ``FIREBALL`` and ``Fire-ball`` are all ``Fireball``). Before
the catalog, ``ALIASES`` maps what players say to the SRD's name: chiefly the named spells,
which the SRD calls by a generic name. A name neither knows is returned exactly as spoken.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib import resources

import orjson

# What players say -> the SRD name. Keys are compared by their match key (above).
ALIASES: dict[str, str] = {
    "Bigby's Hand": "Arcane Hand",
    "Drawmij's Instant Summons": "Instant Summons",
    "Evard's Black Tentacles": "Black Tentacles",
    "Leomund's Secret Chest": "Secret Chest",
    "Leomund's Tiny Hut": "Tiny Hut",
    "Melf's Acid Arrow": "Acid Arrow",
    "Mordenkainen's Faithful Hound": "Faithful Hound",
    "Mordenkainen's Magnificent Mansion": "Magnificent Mansion",
    "Mordenkainen's Private Sanctum": "Private Sanctum",
    "Mordenkainen's Sword": "Arcane Sword",
    "Nystul's Magic Aura": "Arcanist's Magic Aura",
    "Otiluke's Freezing Sphere": "Freezing Sphere",
    "Otiluke's Resilient Sphere": "Resilient Sphere",
    "Otto's Irresistible Dance": "Irresistible Dance",
    "Rary's Telepathic Bond": "Telepathic Bond",
    "Tasha's Hideous Laughter": "Hideous Laughter",
    "Tenser's Floating Disk": "Floating Disk",
    "counter spell": "Counterspell",
    "Pass Without a Trace": "Pass without Trace",
    "Magic Aura": "Arcanist's Magic Aura",
}


def match_key(name: str) -> str:
    """The name as the catalog compares it: NFKC, case-folded, letters and digits only."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(character for character in folded if character.isalnum())


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
        self._by_key = by_key
        spoken: dict[str, list[str]] = {name: [name] for name in names}
        for alias, target in aliases.items():
            spoken[target].append(alias)
        self._spoken = {name: tuple(forms) for name, forms in spoken.items()}

    def canonical(self, value: str) -> str:
        return self._by_key.get(match_key(value), value)

    def spoken_forms(self, value: str) -> tuple[str, ...]:
        """What a speaker may say for the catalog name ``value``: the name, then its
        aliases (``Hideous Laughter``: also ``Tasha's Hideous Laughter``); a name the
        catalog lacks is spoken only as itself."""
        return self._spoken.get(value, (value,))


@cache
def srd_spells() -> SpellCatalog:
    """The shipped SRD catalog with ``ALIASES``."""
    return SpellCatalog(_catalog_names(), ALIASES)

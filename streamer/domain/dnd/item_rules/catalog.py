"""The SRD item catalog: item names canonicalized to the System Reference Document's, and
currency to the lane's form.

The catalog is ``data/srd-items.json`` (the 1,264 item names of SRD 5.1 and 5.2, magic
items and gear, CC BY 4.0: see ``data/srd-items.NOTICE.md``). ``canonical(value)``:

1. *currency* first: a sum of money (``currency.currency``: ``fifty gold``, ``50 gp``,
   ``three pieces of silver``) is ``"<amount> <metal> pieces"`` (``"50 gold pieces"``), or
   ``"<metal> pieces"`` without an amount: the catalog's own ``Gold Piece`` and ``Gold``
   are currency too;
2. a *spoken form* of a catalog name, compared by the spell catalog's match key (case,
   spacing, punctuation and apostrophe forms ignored), a leading article or count
   dropped: the name itself; the name without a parenthesized quantity or price
   (``Arrows (20)`` is said ``arrows``, ``Thieves' Tools``); a ``Noun, Kind`` name said the
   other way round (``Rope, Hempen (50 feet)`` is ``hempen rope``); ``ALIASES`` (``healing
   potion`` is ``Potion of Healing``); and each of these with one plural ending less
   (``daggers``). A form two names share (after case) goes to the first in the catalog's
   order that is written in title case, so ``Thieves' tools`` and ``Thieves' Tools`` are
   one item; a form shared by names that differ otherwise (``Adamantine Armor``) is
   dropped, as no one name is meant.

A value none of these knows is returned unchanged (a homebrew item, ``obsidian key``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from importlib import resources

import orjson

from streamer.domain.dnd.item_rules.currency import currency
from streamer.domain.dnd.spell_catalog import match_key

# What players say -> the SRD name (compared by match key)
ALIASES: dict[str, str] = {
    "healing potion": "Potion of Healing",
    "health potion": "Potion of Healing",
    "greater healing potion": "Potion of Greater Healing",
    "superior healing potion": "Potion of Superior Healing",
    "supreme healing potion": "Potion of Supreme Healing",
    "invisibility potion": "Potion of Invisibility",
    "potion of greater healing": "Potion of Greater Healing",
    "potions of healing": "Potion of Healing",
    "lockpicks": "Thieves' Tools",
    "thieves tools": "Thieves' Tools",
}
_LEADS = frozenset({"a", "an", "the", "one", "some", "my", "his", "her", "their", "your"})
_PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*$")
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+|[^\W_]+(?:'[^\W_]+)*")
_ENDINGS = ("es", "s")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def item_key(name: str) -> str:
    """The spell catalog's match key (``spell_catalog.match_key``), computed faster for a
    name in ASCII (every catalog name, most of what is said)."""
    if name.isascii():
        return _NOT_ALNUM.sub("", name.lower())
    return match_key(name)


def _spoken(name: str) -> list[str]:
    """The forms a speaker says for ``name`` (its aliases aside)."""
    forms = [name]
    base = _PARENTHESIS.sub("", name)
    if base != name:
        forms.append(base)
    if base.count(",") == 1:
        noun, kind = (part.strip() for part in base.split(","))
        forms.append(f"{kind} {noun}")
    return forms


def _choice(pairs: list[tuple[int, str]]) -> str:
    """The name a form says: of the names whose best-ranked form it is (the name, then
    without its parenthesis, then turned round), the one most capitalized when they differ
    only by case; ``""`` when they differ otherwise."""
    best = min(rank for rank, _ in pairs)
    names = [name for rank, name in pairs if rank == best]
    if len(names) == 1:
        return names[0]
    if len({name.casefold() for name in names}) > 1:
        return ""
    return max(names, key=lambda name: sum(character.isupper() for character in name))


def _singulars(chosen: Mapping[str, str]) -> dict[str, str]:
    """A plural name said in the singular (``ball bearing`` is ``Ball Bearings``): each
    chosen form ending in one ``s`` less, ``""`` where two names would share it."""
    singulars: dict[str, str] = {}
    for key, name in chosen.items():
        if name and key.endswith("s") and not key.endswith("ss") and len(key) > 4:
            singular = key[:-1]
            singulars[singular] = name if singulars.get(singular, name) == name else ""
    return singulars


def _catalog() -> tuple[dict[str, str], frozenset[str]]:
    """Each catalog name -> its kind (``category``: ``potion``, ``weapon``...), and the
    names of magic items."""
    data = (resources.files("streamer.domain.dnd") / "data" / "srd-items.json").read_bytes()
    entries = orjson.loads(data)
    kinds = {entry["name"]: entry["category"] for entry in entries}
    return kinds, frozenset(entry["name"] for entry in entries if entry["magic"])


class ItemCatalog:
    """Canonical item names: ``canonical("a healing potion") == "Potion of Healing"``."""

    def __init__(
        self,
        kinds: Mapping[str, str],
        aliases: dict[str, str],
        magic: frozenset[str] = frozenset(),
    ) -> None:
        self.names = tuple(kinds)
        self._kinds = dict(kinds)
        self._magic = magic
        ranked: dict[str, list[tuple[int, str]]] = {}  # match key -> (form's rank, name)
        for name in self.names:
            for rank, form in enumerate(_spoken(name)):
                ranked.setdefault(item_key(form), []).append((rank, name))
        chosen = {key: _choice(pairs) for key, pairs in ranked.items()}
        for alias, target in aliases.items():
            if target not in self.names:
                raise ValueError("an alias names an item the catalog lacks")
            chosen[item_key(alias)] = target
        for key, name in _singulars(chosen).items():
            chosen.setdefault(key, name)
        self._by_key = {key: name for key, name in chosen.items() if name}
        spoken: dict[str, list[str]] = {}
        for name in self._by_key.values():
            spoken.setdefault(name, [])
        for name in self.names:
            if self._by_key.get(item_key(name)) == name:
                spoken[name].extend(form for form in _spoken(name) if form not in spoken[name])
        for alias, target in aliases.items():
            spoken[target].append(alias)
        self._spoken = {name: tuple(forms) for name, forms in spoken.items()}

    def known(self, value: str) -> str | None:
        """The catalog's name (or the currency) ``value`` says, or ``None``."""
        words = _WORD.findall(value.casefold())
        money = currency(words)
        return money if money is not None else self._named(words)

    def named(self, value: str) -> str | None:
        """The catalog's name ``value`` says (currency aside), or ``None``."""
        return self._named(_WORD.findall(value.casefold()))

    def magic(self, name: str) -> bool:
        """Whether the catalog name ``name`` is a magic item."""
        return name in self._magic

    def _named(self, words: list[str]) -> str | None:
        if len(words) > 1 and words[0] in _LEADS:
            words = words[1:]
        key = item_key(" ".join(words))
        found = self._by_key.get(key)
        for ending in _ENDINGS:
            if found is None and key.endswith(ending) and len(key) > len(ending) + 2:
                found = self._by_key.get(key[: -len(ending)])
        return found

    def kind(self, name: str) -> str | None:
        """The kind of the catalog name ``name`` (``None``: currency, or not the catalog's)."""
        return self._kinds.get(name)

    def canonical(self, value: str) -> str:
        found = self.known(value)
        return value if found is None else found

    def spoken_forms(self, value: str) -> tuple[str, ...]:
        """What a speaker may say for the catalog name ``value``: its forms and aliases;
        currency and a name the catalog lacks are spoken only as themselves."""
        return self._spoken.get(value, (value,))


@cache
def srd_items() -> ItemCatalog:
    """The shipped SRD item catalog with ``ALIASES``."""
    kinds, magic = _catalog()
    return ItemCatalog(kinds, ALIASES, magic)

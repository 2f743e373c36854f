"""How the item rules read the words after a verb: one item (``item_at``: a catalog name or
a sum of money, ending where its phrase ends) and every sum of money of a finding
(``sums_after``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from streamer.domain.dnd.item_rules.catalog import ItemCatalog
from streamer.domain.dnd.item_rules.currency import METALS, NUMBER_WORDS, amount, currency
from streamer.domain.dnd.spell_rules.text import words_of

# A token: a number written with thousands commas, a word (apostrophes inside), or one
# mark that ends a phrase
TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+|[^\W_]+(?:'[^\W_]+)*|[,;:.!?\"()]|--|\u2014")
MARKS = frozenset(',;:.!?"()') | {"--", "\u2014"}
# Words that end an item's phrase: what follows it is not the item
ENDS = words_of(
    "and or to with from for on in into onto at out off that which who where but so "
    "because as over back up down away just if then now while when before after instead "
    "right too here there please also again inside each once until since is was were are"
)
DETERMINERS = words_of("a an the another some one my his her their your our its this these those")
CONTAINERS = words_of("pouch purse sack bag coinpurse handful stack pile chest")
_HOLDING = words_of("of with containing holding")
_PIECES = frozenset({"piece", "pieces", "coin", "coins"})
_ABBREVIATIONS = frozenset({"pp", "gp", "ep", "sp", "cp"})
_PRICES = words_of("worth cost costs costing for price value valued")
_NOT_DESCRIBING = words_of("you him her them me us it i") | DETERMINERS
MAX_FREE_WORDS = 2  # words before a catalog name that describe it ("a basic hand crossbow")
LONGEST_NAME = 6


class Item(NamedTuple):
    """An item said at ``start`` to ``end`` (token indices): as spoken, and as the catalog
    (or the currency rule) writes it."""

    start: int
    end: int
    spoken: str
    canonical: str


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def _ends(words: Sequence[str], index: int) -> bool:
    return index >= len(words) or words[index] in MARKS or words[index] in ENDS


def item_at(words: Sequence[str], start: int, catalog: ItemCatalog) -> Item | None:
    """The item whose phrase opens at ``words[start]``: determiners, at most
    ``MAX_FREE_WORDS`` describing words, then a catalog name or a sum of money that ends the
    phrase (the next word is in ``ENDS`` or a mark); a container's money (``a pouch of 20
    platinum``) is the money. The longest name wins."""
    index = start
    while index < len(words) and words[index] in DETERMINERS and not _money_at(words, index):
        index += 1
    if index + 2 < len(words) and words[index] in CONTAINERS and words[index + 1] in _HOLDING:
        inner = _phrase(words, index + 2)  # "a pouch with 200 platinum"
        money = currency(inner)
        if money is not None:
            return Item(index + 2, index + 2 + len(inner), " ".join(inner), money)
    stop = index + len(_phrase(words, index))
    if stop == index:
        return None
    money = currency(words[start:stop])
    if money is not None:
        return Item(start, stop, " ".join(words[start:stop]), money)
    for first in range(index, min(index + MAX_FREE_WORDS, stop - 1) + 1):
        free = words[index:first]
        if _NOT_DESCRIBING.intersection(free) or any(map(_amount_word, free)):
            break
        if stop - first > LONGEST_NAME or (first > index and words[first] in DETERMINERS):
            continue
        spoken = " ".join(words[first:stop])
        known = catalog.named(spoken)
        if known is not None and known.casefold() not in METALS:
            return Item(first, stop, spoken, known)
    return None


def _phrase(words: Sequence[str], start: int) -> Sequence[str]:
    """The words from ``start`` to the first that ends an item's phrase."""
    stop = start
    while stop < len(words) and not _ends(words, stop):
        stop += 1
    return words[start:stop]


def _money_at(words: Sequence[str], index: int) -> bool:
    """Whether ``words[index]`` ("a", "one") is a sum's amount: a metal follows."""
    return index + 1 < len(words) and words[index + 1] in METALS


def _of(words: Sequence[str], index: int) -> bool:
    return words[index + 1 : index + 2] == ["of"]


def _metal(words: Sequence[str], index: int) -> bool:
    return index < len(words) and words[index] in METALS


def _amount_word(word: str) -> bool:
    return word in NUMBER_WORDS or word in ("a", "an") or amount([word]) is not None


def sums_after(words: Sequence[str], start: int) -> list[Item]:
    """Every sum of money said from ``words[start]``: an amount (or none) before a metal
    (or an abbreviation) that is not a describing word (``a gold ring``), or before
    ``pieces of <metal>``; none after a price word (``worth 500 gold``)."""
    found: list[Item] = []
    index = start
    while index < len(words):
        word = words[index]
        end = None
        if word in METALS or word in _ABBREVIATIONS:
            end = index + 1
            if end < len(words) and words[end] in _PIECES:
                end += 1
            elif not _ends(words, end) and word in METALS:
                index += 1
                continue
        elif word in _PIECES and _of(words, index) and _metal(words, index + 2):
            end = index + 3
        if end is None:
            index += 1
            continue
        first = index
        while first > start and _amount_word(words[first - 1]):
            first -= 1
        while first < index and amount(words[first:index]) is None:
            first += 1
        if not (first > start and words[first - 1] in _PRICES):
            money = currency(words[first:end])
            if money is not None:
                found.append(Item(first, end, " ".join(words[first:end]), money))
        index = end
    return found

"""Currency as the item-events lane writes it: ``"<amount> <metal> pieces"``, the amount in
digits and the metal spelled out (``"50 gold pieces"``, ``"1 silver pieces"``), or
``"<metal> pieces"`` when no amount is said.

``currency(words)`` reads a run of lower-cased words that is a sum of money and nothing
else: an amount (digits, ``1,000``, or number words: ``fifty``, ``two hundred``, ``a
hundred``, ``a``/``an``/``one``), then a metal (``gold``, ``silver``, ``copper``,
``platinum``, ``electrum``) and optionally ``piece(s)`` or ``coin(s)``; or an amount,
``piece(s)`` (or ``coin(s)``) ``of`` and a metal (``three pieces of silver``); or an amount
and an abbreviation (``50 gp``, ``5gp``). A leading article or possessive (``the``, ``my``)
says no amount; a container before it (``a pouch of``, ``a sack with``) is not part of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

METALS = ("platinum", "gold", "electrum", "silver", "copper")
_ABBREVIATIONS = {"pp": "platinum", "gp": "gold", "ep": "electrum", "sp": "silver", "cp": "copper"}
_UNITS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000}
_PIECES = frozenset({"piece", "pieces", "coin", "coins"})
NUMBER_WORDS = frozenset({*_UNITS, *_TENS, *_SCALES, "and"})
_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_GLUED = re.compile(r"(\d+)(pp|gp|ep|sp|cp)")
_NO_AMOUNT = frozenset({"the", "my", "his", "her", "their", "your", "our", "some", "all"})


def amount(words: Sequence[str]) -> int | None:
    """The number ``words`` say (all of them), or ``None``: ``["two", "hundred"]`` is 200,
    ``["1,000"]`` 1000, ``["a", "hundred"]`` 100, ``["twenty-five"]`` is read as two words
    by the caller."""
    if len(words) == 1 and _DIGITS.fullmatch(words[0]):
        return int(words[0].replace(",", ""))
    total, current, seen = 0, 0, False
    for index, word in enumerate(words):
        if word in _UNITS and not (word in ("a", "an") and index > 0):
            if current % 10 or (current and current < 10):
                return None
            current += _UNITS[word]
        elif word in _TENS:
            if current % 100:
                return None
            current += _TENS[word]
        elif word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] == 1000:
                total, current = total + current, 0
        elif word == "and" and seen:
            continue
        else:
            return None
        seen = True
    return total + current if seen else None


def currency(words: Sequence[str]) -> str | None:
    """The currency ``words`` are, written as the lane writes it, or ``None``."""
    if not words:
        return None
    if len(words) == 1:
        glued = _GLUED.fullmatch(words[0])
        if glued is not None:
            return _written(int(glued.group(1)), _ABBREVIATIONS[glued.group(2)])
    lead: Sequence[str] = words
    metal: str | None = None
    if words[-1] in _ABBREVIATIONS:
        lead, metal = words[:-1], _ABBREVIATIONS[words[-1]]
        if not lead:
            return None
    elif len(words) >= 3 and words[-2] == "of" and words[-3] in _PIECES and words[-1] in METALS:
        lead, metal = words[:-3], words[-1]
    else:
        if words[-1] in _PIECES:
            words = words[:-1]
        if words and words[-1] in METALS:
            lead, metal = words[:-1], words[-1]
    if metal is None:
        return None
    if not lead or (len(lead) == 1 and lead[0] in _NO_AMOUNT):
        return None if words[-1] in _ABBREVIATIONS else _written(None, metal)
    count = amount(lead)
    return None if count is None else _written(count, metal)


def _written(count: int | None, metal: str) -> str:
    return f"{metal} pieces" if count is None else f"{count} {metal} pieces"

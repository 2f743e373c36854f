"""Names: the documented name key, and canonical names through the glossary's aliases.

The *name key* of a name is the name in Unicode NFKC, case-folded, with every apostrophe
form (U+2019, U+2018, U+02BC, U+0060, U+00B4) written ``'`` and every run of white space
one space, trimmed. Two names with the same key are the same name: ``VEX'AHLIA`` and
``vex'ahlia`` (or with U+2019 for the apostrophe). Nothing else
is removed (``Vexahlia`` is another name unless the glossary lists it as an alias).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))


def folded(text: str) -> str:
    """``text`` in NFKC, case-folded, every apostrophe form written ``'``."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)


def name_key(name: str) -> str:
    return " ".join(folded(name).split())


class Names:
    """Canonical names: a glossary name or alias (by name key) gives its glossary name;
    any other name is returned exactly as spoken. It establishes no fact."""

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        self._canonical: dict[str, str] = dict(aliases or {})
        spellings: dict[str, list[str]] = {}
        for key, name in self._canonical.items():
            spellings.setdefault(name, []).append(key)
        self._spellings = {name: tuple(keys) for name, keys in spellings.items()}

    def canonical(self, name: str) -> str:
        return self._canonical.get(name_key(name), name)

    def spellings(self, name: str) -> tuple[str, ...]:
        """The name keys of the glossary name ``name`` and of its aliases (none when the
        glossary does not list it)."""
        return self._spellings.get(name, ())

    def __len__(self) -> int:
        return len(self._canonical)

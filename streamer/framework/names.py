"""The name key: how two spellings of one name are recognized as the same name.

The *name key* of a name is the name in Unicode NFKC, case-folded, with every apostrophe
form (U+2019, U+2018, U+02BC, U+0060, U+00B4) written ``'`` and every run of white space
one space, trimmed. Two names with the same key are the same name: ``VEX'AHLIA`` and
``vex'ahlia`` (or with U+2019 for the apostrophe). Nothing else is removed (``Vexahlia`` is
another name unless the glossary lists it as an alias).
"""

from __future__ import annotations

import unicodedata

_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))


def folded(text: str) -> str:
    """``text`` in NFKC, case-folded, every apostrophe form written ``'``."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)


def name_key(name: str) -> str:
    return " ".join(folded(name).split())

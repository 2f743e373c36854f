"""Secrets: what the players must not see (the glossary's ``secrets:`` section).

```yaml
secrets:
  names: ["the Chroma Conclave's plan", Sylas]   # names and terms
  units: [[t00120, t00134]]                      # ranges of units (first and last ID)
  speakers: ["MATT (aside)"]                     # every unit these speakers say
```

A text *names* a secret when the words of one of its spellings occur in the text's words
in order, consecutive, as whole words, a word differing by at most one ending ``s``,
``es`` or ``'s`` (the support check's comparison, ``normalization.support``; the words of
a text: NFKC, case-folded, apostrophe forms written ``'``, runs of letters and digits). The
spellings of a secret name are the name and, when the glossary's ``names`` lists it (by
name key), its glossary name and every alias.

A unit lies in a range ``[first, last]`` when its ID is the first or the last, or when the
three IDs are one prefix followed by a number (``t00120``) and its number lies between
theirs. A speaker is compared by name key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from streamer.framework.names import folded, name_key

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_ENDINGS = ("s", "es", "'s")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def text_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` as secrets are compared."""
    return tuple(_WORD.findall(folded(text)))


def _same_word(spoken: str, secret: str) -> bool:
    if spoken == secret:
        return True
    longer, shorter = (spoken, secret) if len(spoken) > len(secret) else (secret, spoken)
    return any(longer == shorter + ending for ending in _ENDINGS)


def _says(words: tuple[str, ...], secret: tuple[str, ...]) -> bool:
    size = len(secret)
    return any(
        all(_same_word(words[start + i], secret[i]) for i in range(size))
        for start in range(len(words) - size + 1)
    )


def _numbered(unit_id: str) -> tuple[str, int] | None:
    found = _NUMBERED.match(unit_id)
    return None if found is None else (found[1], int(found[2]))


@dataclass(frozen=True)
class Secrets:
    """The secrets of a glossary: ``spellings`` (each a secret spelling's words), unit
    ``ranges`` (first, last) and ``speakers`` (name keys). Empty: nothing is secret."""

    spellings: tuple[tuple[str, ...], ...] = ()
    ranges: tuple[tuple[str, str], ...] = ()
    speakers: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.spellings or self.ranges or self.speakers)

    def names_one(self, text: str) -> bool:
        """Whether ``text`` names a secret."""
        if not self.spellings:
            return False
        words = text_words(text)
        return any(_says(words, spelling) for spelling in self.spellings)

    def value_names_one(self, value: Any) -> bool:
        """Whether a JSON value (a record, a member) names a secret in any of its strings,
        member names included."""
        if isinstance(value, str):
            return self.names_one(value)
        if isinstance(value, Mapping):
            return any(
                self.names_one(str(key)) or self.value_names_one(item)
                for key, item in value.items()
            )
        if isinstance(value, list | tuple):
            return any(self.value_names_one(item) for item in value)
        return False

    def in_range(self, unit_id: str) -> bool:
        numbered = _numbered(unit_id)
        for first, last in self.ranges:
            if unit_id in (first, last):
                return True
            low, high = _numbered(first), _numbered(last)
            if (
                numbered
                and low
                and high
                and numbered[0] == low[0] == high[0]
                and low[1] <= numbered[1] <= high[1]
            ):
                return True
        return False

    def unit_withheld(self, unit_id: str, text: str, speaker: str | None) -> bool:
        """Whether a unit is withheld from the players: in a secret range, said by a secret
        speaker, or naming a secret."""
        if speaker is not None and name_key(speaker) in self.speakers:
            return True
        return self.in_range(unit_id) or self.names_one(text)


def secrets_of(
    names: Iterable[str],
    spellings_of: Mapping[str, Iterable[str]],
    ranges: Iterable[tuple[str, str]] = (),
    speakers: Iterable[str] = (),
) -> Secrets:
    """The secrets naming ``names``; ``spellings_of``: a name key -> the other spellings of
    that name (the glossary's name and aliases)."""
    found: dict[tuple[str, ...], None] = {}
    for name in names:
        for spelling in (name, *spellings_of.get(name_key(name), ())):
            words = text_words(spelling)
            if words:
                found.setdefault(words)
    return Secrets(
        tuple(found), tuple(ranges), frozenset(name_key(speaker) for speaker in speakers)
    )

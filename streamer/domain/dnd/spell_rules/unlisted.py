"""A spell the catalog does not hold, named after a casting verb (``unlisted``): homebrew
spells and spells outside the SRD ("I cast Grand Column under myself", "cast Armor of
Agathys"), written as the transcript says them: the words the transcript capitalizes,
joined by ``of``, ``the``, ``and`` inside. Not the class and race features players say
they cast (``FEATURES``: "I cast Turn Undead", "Hexblade's Curse", "Healing Hands"), and
not a word the catalog's tolerance would read as a name (a pronoun, ``I``)."""

from __future__ import annotations

from collections.abc import Sequence

from streamer.domain.dnd.spell_rules.text import words_of

# The longest name read, in words
UNLISTED_WORDS = 6
_JOINING = words_of("of the and")
# Features said with ``cast`` that are no spell (docs/extraction.md, labelling rules)
FEATURES = frozenset(
    [
        "rage", "wild shape", "bardic inspiration", "cutting words", "divine smite",
        "sneak attack", "action surge", "channel divinity", "hexblade's curse",
        "turn undead", "invoke duplicity", "preserve life", "healing hands", "lay on hands",
        "second wind", "countercharm", "song of rest", "divine sense", "arcane recovery",
        "destroy undead", "sacred weapon", "radiant soul", "flurry of blows",
        "step of the wind", "patient defense", "stunning strike", "cunning action",
        "blessing of the trickster",
    ]
)  # fmt: skip
_NOT_NAMES = words_of("i i'm i'll i'd it its it's that this what which")


def unlisted(words: Sequence[str]) -> str | None:
    """The name ``words`` open with, when its first word is capitalized: its capitalized
    words and the joining words between them; ``None`` for a feature or no such word."""
    taken: list[str] = []
    for word in words[:UNLISTED_WORDS]:
        if (word[:1].isupper() and word.lower() not in _NOT_NAMES) or (
            taken and word.lower() in _JOINING
        ):
            taken.append(word)
        else:
            break
    while taken and taken[-1].lower() in _JOINING:
        taken.pop()
    if not taken:
        return None
    name = " ".join(taken)
    return None if name.lower() in FEATURES else name

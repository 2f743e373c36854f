"""Rule 6 of the proper-noun miner (``world_names``): a name said enough to be a record,
and the game master's own words that tell a person (``docs/extraction.md``, "The
proper-noun miner").

A name is said enough when it is said twice, or once after "named", "called" or a title
("Arcanist Allura Vysoren"), once with a place word ("the Leaky Tap Tavern"), once after
"the city of" or "welcome to" ("the city of Kamordah", C1E001), or once by the game master
after a place's preposition, as it is ("near Felderwin", C2E001). A name the game master
quotes alone before anyone else says it (``told``) is a person's, said in a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable

from streamer.domain.dnd.name_cues import PLACE_BEFORE, PLACE_OF, PLACE_TWO, PLACE_WORDS
from streamer.domain.dnd.proper_nouns import TITLES, NameCounts, NameSurvey

TITLED = frozenset(title.lower() for title in TITLES)


def place_word(forms: Iterable[str]) -> bool:
    """A place word after a name's first word ("Leaky Tap Tavern", "Greyspine Manor")."""
    return any(word in PLACE_WORDS for form in forms for word in form.split()[1:])


def said_enough(
    name: str, forms: Iterable[str], counts: NameCounts, survey: NameSurvey, gm: str
) -> bool:
    """Rule 6: whether the name (a group's ``name`` and its ``forms``) is said enough."""
    if counts.said >= 2:
        return True
    introduced = counts.before["named"] + counts.before["called"] + placed(counts)
    introduced += after_title(counts)
    return bool(introduced) or place_word(forms) or gone(name, counts, survey, gm)


def after_title(counts: NameCounts) -> int:
    """How often a name is said after a title ("Lord", or the world's own: "the
    Wardenhelm Poppin", ``world_names``)."""
    return counts.world_titled + sum(n for word, n in counts.before.items() if word in TITLED)


def told(name: str, counts: NameCounts, gm: str) -> int:
    """How often the game master quotes the name alone ('He says, "Tremaine."', C1E002's
    kind; '"Ukurat."', C1E060; '"Giles!"', C1E001), when the game master says it first:
    an NPC says their name or calls someone. Not a word a player said first and the game
    master echoes ('"Shedulable."', C1E060), an adverb said as a reply ('"Unfortunately."',
    C1E001), nor a word with a lower-case part ('"Mm-hm."', C1E060)."""
    lower = name.endswith("ly") or any(part[:1].islower() for part in name.split("-")[1:])
    return counts.alone[gm] if counts.first[1] == gm and not lower else 0


def gone(name: str, counts: NameCounts, survey: NameSurvey, gm: str) -> bool:
    """A name said once, by the game master, after a place's preposition, as it is ("near
    Felderwin", C2E001; "from Port Zoon", C2E035); not the end of a longer run of
    capitalized words ("in The Jerk", "from The Gentleman": a title, a role), nor a word
    of a longer name ("in Pumat's voice" of "Pumat Sol")."""
    whole = survey.names.get(name)
    return (
        counts.speakers[gm] == counts.said
        and whole is not None
        and whole.said == counts.said
        and any(counts.before[word] for word in PLACE_BEFORE)
        and not any(
            " " in other and name in (other.split()[0], other.split()[-1]) for other in survey.names
        )
    )


def placed(counts: NameCounts) -> int:
    """How often a name is said after "the city of", "the town of"... or "welcome to"."""
    return sum(
        n
        for two, n in counts.before_two.items()
        if two in PLACE_TWO or (two.endswith(" of") and two.split()[0] in PLACE_OF)
    )

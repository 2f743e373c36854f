"""Which spell a run of words names: ``SpellMatcher`` (after a casting verb: the catalog, its
aliases and the glossary's) and ``NameForms`` (said without one: the names that are not
ordinary words, ``ORDINARY_SPELLS``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from streamer.domain.dnd.spell_catalog import ARTICLES, loose_key, match_key
from streamer.domain.dnd.spell_rules.text import WORD, is_possessive

LONGEST_NAME_WORDS = 8  # the longest catalog name (6 words) and two articles

# Catalog names that are ordinary words or phrases: never read without a casting verb.
ORDINARY_SPELLS = frozenset(
    {
        "Aid", "Alarm", "Augury", "Awaken", "Bane", "Bless", "Blight", "Blink", "Blur",
        "Clairvoyance", "Clone", "Command", "Commune", "Compulsion", "Confusion",
        "Contagion", "Contingency", "Control Water", "Control Weather", "Creation",
        "Darkness", "Darkvision", "Daylight", "Demiplane", "Divination", "Dream",
        "Earthquake", "Enthrall", "Entangle", "Fabricate", "Fear", "Find Traps",
        "Find the Path", "Fly", "Forbiddance", "Foresight", "Gate", "Geas", "Glibness",
        "Grease", "Guidance", "Hallow", "Harm", "Haste", "Heal", "Heroism", "Hex",
        "Identify", "Imprisonment", "Invisibility", "Jump", "Knock", "Legend Lore",
        "Levitate", "Light", "Locate Animals or Plants", "Locate Creature",
        "Locate Object", "Magic Aura", "Magic Weapon", "Major Image", "Maze", "Mending",
        "Message", "Mislead", "Move Earth", "Plant Growth", "Project Image",
        "Regenerate", "Reincarnate", "Resistance", "Resurrection", "Sanctuary",
        "Scrying", "Seeming", "Sending", "Sequester", "Shatter", "Shield", "Silence",
        "Silent Image", "Sleep", "Slow", "Spare the Dying", "Speak with Animals",
        "Speak with Dead", "Speak with Plants", "Suggestion", "Symbol", "Telekinesis",
        "Teleport", "Tongues", "True Seeing", "True Strike", "Tsunami", "Water Breathing",
        "Water Walk", "Weird", "Web", "Wind Walk", "Wish", "counter spell",
    }
)  # fmt: skip


class SpellMatcher:
    """Which known spell a run of words names: ``match(words)`` is the canonical name and
    the number of words it took (the longest name that fits), or ``None``.

    ``names`` are (spoken form, canonical name) pairs. A run matches a form when their
    match keys are equal, or their loose keys (articles dropped); a run opening with a
    possessive (``Tasha's``) is also read without it."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        self._by_key: dict[str, str] = {}
        self._by_loose: dict[str, str] = {}
        longest = 1
        for spoken, canonical in names:
            self._by_key.setdefault(match_key(spoken), canonical)
            self._by_loose.setdefault(loose_key(spoken), canonical)
            longest = max(longest, len(WORD.findall(spoken)))
        self._longest = min(longest + 2, LONGEST_NAME_WORDS)

    def match(self, words: Sequence[str]) -> tuple[str, int] | None:
        found = self._match(words)
        if found is None and len(words) > 1 and is_possessive(words[0]):
            after = self._match(words[1:])
            if after is not None:
                return after[0], after[1] + 1
        return found

    def _match(self, words: Sequence[str]) -> tuple[str, int] | None:
        # a run's keys are its words' keys joined: the space between two words neither
        # composes (NFKC) nor is a letter, so each word is keyed once, not once a run
        longest = min(self._longest, len(words))
        keys = [match_key(word) for word in words[:longest]]
        looses: list[str] | None = None
        for size in range(longest, 0, -1):
            if words[size - 1].lower() in ARTICLES:
                continue
            name = self._by_key.get("".join(keys[:size]))
            if name is None:
                if looses is None:
                    looses = [loose_key(word) for word in words[:longest]]
                name = self._by_loose.get("".join(looses[:size]))
            if name is not None:
                return name, size
        return None


class NameForms:
    """Spell names said without a casting verb: each form's words, lower-cased, without
    the articles, and its canonical name (``by_words``: what the prefilter reads)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        self.by_words: dict[tuple[str, ...], str] = {}
        self.joined: dict[str, str] = {}  # the words run together: "firebolt"
        self.firsts: set[str] = set()
        sizes: dict[str, set[int]] = {}  # first word -> the lengths of its forms
        longest = 1
        for spoken, canonical in names:
            words = tuple(w for w in WORD.findall(spoken.lower()) if w not in ARTICLES)
            if not words:
                continue
            self.by_words.setdefault(words, canonical)
            self.joined.setdefault("".join(words), canonical)
            self.firsts.add(words[0])
            sizes.setdefault(words[0], set()).add(len(words))
            longest = max(longest, len(words))
        self.firsts.update(self.joined)  # "shoot a firebolt at it"
        self.longest = longest + 2  # articles inside
        self._sizes = {first: sorted(found, reverse=True) for first, found in sizes.items()}

    def at(self, lowered: Sequence[str], start: int) -> tuple[str, int] | None:
        """The form starting at ``lowered[start]`` (a possessive before it included): its
        canonical name and the index after its last word."""
        found = self._at(lowered, start)
        if found is None and is_possessive(lowered[start]) and start + 1 < len(lowered):
            found = self._at(lowered, start + 1)
        return found

    def whole(self, lowered: Sequence[str]) -> str | None:
        """The canonical name when ``lowered`` is exactly one form, or one word that is a
        form's words run together (``firebolt``: it holds every word of the form)."""
        if not lowered:
            return None
        found = self.at(lowered, 0)
        if found is not None and found[1] == len(lowered):
            return found[0]
        return self.joined.get(lowered[0]) if len(lowered) == 1 else None

    def _at(self, lowered: Sequence[str], start: int) -> tuple[str, int] | None:
        sizes = self._sizes.get(lowered[start])
        if sizes is None:
            joined = self.joined.get(lowered[start])  # "firebolt": one word, every word
            return None if joined is None else (joined, start + 1)
        stop = min(len(lowered), start + self.longest)
        window = lowered[start:stop]
        if ARTICLES.isdisjoint(window):  # a form's words are the window's first ones
            for size in sizes:  # the longest first
                if size <= len(window):
                    name = self.by_words.get(tuple(window[:size]))
                    if name is not None:
                        return name, start + size
            return None
        for end in range(stop, start, -1):
            if lowered[end - 1] in ARTICLES:
                continue
            words = tuple(w for w in lowered[start:end] if w not in ARTICLES)
            name = self.by_words.get(words)
            if name is not None:
                return name, end
        return None

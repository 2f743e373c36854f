"""The proper-noun survey: what the session says of each capitalized name, counted.

A *name* is a run of capitalized words inside a sentence ("Nostoc Greyspine", "Slayer's
Take"): each word starts with an upper-case letter and goes on in lower case (``I``, and
words in capitals such as ``DM`` or ``OK``, are no names); words are joined by single
spaces or hyphens only, so punctuation ends a name. A name's trailing possessive is dropped
("Grog's" is ``Grog``). A name starting a sentence (after ``.``, ``!``, ``?``, ``:``, a
quotation mark, a dash or an ellipsis, or at the start of the unit) is counted apart: every
English sentence starts with a capital.

``NameSurvey.add(speaker, text)`` counts, per name: how often it is said, how often in the
middle of a sentence, by which speaker, and after which cue (``cues``: the word before it,
the words after it, lower-cased). It also counts each lower-case word of the session (how
common a word is *here*: "well" is said in lower case, "Brenna" never), and who speaks
next after a unit that says a name to someone ("Grog, what do you do?" answered by
TRAVIS: ``NameCounts.answered``). The counts are
bounded by the session's vocabulary, never its units. Deterministic: counts only.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc`\u00b4", "'"))
# What ends a sentence, or opens a quotation: the next word is capitalized anyway.
_BREAK = re.compile(r"[.!?:;\"\u201c\u201d()\[\]]|--|\u2014|\u2026")
# A run of capitalized words, one space apart (checked word by word after).
_RUN = re.compile(
    r"(?<![\w'-])[A-Z\u00c0-\u00de]\w*(?:['-]\w+)*"
    r"(?: (?:of )?[A-Z\u00c0-\u00de]\w*(?:['-]\w+)*)*"
)
# The word before a name and what lies between them, and the word before that, read
# backwards from the name (the words reversed: a word reads the same pattern either way);
# the word after it.
_WORD = r"[^\W\d_]+(?:['-][^\W\d_]+)*"
_BEFORE_REVERSED = re.compile(rf"([^\w]*)({_WORD})(?: +({_WORD}))?")
LOOK_BEHIND = 40  # characters before a name that its words before it are read in
_AFTER = re.compile(r"[ ,]*([^\W\d_]+(?:['-][^\W\d_]+)*)")
# A name quoted alone, said or called: '"Tremaine."', '"Giles!"'.
_ALONE = re.compile(r'"([A-Z][\w\'-]*(?: [A-Z][\w\'-]*)*)[.!]"')
# Two one-word names joined by "and": "Austin and Gail look past".
_PAIR = re.compile(r"(?<![\w'-])([A-Z][\w'-]*) and ([A-Z][\w'-]*)(?![\w'-])")
_LOWER = re.compile(r"(?<![\w'-])[a-z][a-z'-]*")


def _words(text: str) -> frozenset[str]:
    """The words of ``text``, one space apart."""
    return frozenset(text.split())


def _capitalized(word: str) -> bool:
    return word[0].isupper() and (len(word) == 1 or not word[1:].replace("'", "").isupper())


@dataclass
class NameCounts:
    """What the session says of one name."""

    said: int = 0
    mid_sentence: int = 0
    speakers: Counter[str] = field(default_factory=Counter)
    before: Counter[str] = field(default_factory=Counter)  # the lower-case word before it
    after: Counter[str] = field(default_factory=Counter)  # the lower-case word after it
    before_two: Counter[str] = field(default_factory=Counter)  # "city of", "in the"
    addressed: Counter[str] = field(default_factory=Counter)  # speakers saying it to someone
    # ... opening a sentence or in a unit quoting someone ("Cloen, wake up!", '"Okay,
    # Fitz?"'; not "His own tinkered construction, Bad News.")
    hailed: Counter[str] = field(default_factory=Counter)
    # (who said it to someone outside a quotation, who spoke next): "Percy, what do you
    # do?" from the game master, answered by TALIESIN; not an NPC's '"Rissa, would you..."'
    calls: Counter[tuple[str, str]] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)  # who speaks next, when another
    out_of_game: int = 0  # said in a unit with a word of the real world ("sponsor", "Twitch")
    alone: Counter[str] = field(default_factory=Counter)  # speakers quoting it alone: '"Adra."'
    first: tuple[int, str] = (-1, "")  # the unit that says it first, and its speaker
    joined: Counter[str] = field(default_factory=Counter)  # "Austin and Gail": the other
    world_titled: int = 0  # said after a title of the world's own ("the Wardenhelm Poppin")
    turns: int = 0  # given a turn: "Fjord's up", "that finishes Fjord's turn", "Vex, you're up"


@dataclass
class NameSurvey:
    """The session's names and lower-case words, counted unit by unit (``add``)."""

    names: dict[str, NameCounts] = field(default_factory=dict)
    lower: Counter[str] = field(default_factory=Counter)
    speakers: Counter[str] = field(default_factory=Counter)  # units per speaker
    units: int = 0
    # The last unit's speaker and the names it said to someone (``NameCounts.answered``).
    said_to: tuple[str, tuple[str, ...]] = ("", ())
    said_outside: tuple[str, ...] = ()  # ... of them, those said outside a quotation

    def add(self, speaker: str | None, text: str) -> None:
        who = "" if speaker is None else " ".join(speaker.split())
        self.units += 1
        self.speakers[who] += 1
        text = text.translate(_APOSTROPHES)
        lower = _LOWER.findall(text)
        self.lower.update(lower)
        last, called = self.said_to
        if who != last:
            for name in called:
                self.names[name].answered[who] += 1
            for name in self.said_outside:
                self.names[name].calls[(last, who)] += 1
        real = not _UNIT_REAL.isdisjoint(lower) or not REAL_WORLD_NAMES.isdisjoint(text.split())
        vocatives: list[str] = []
        outside: list[str] = []  # ... not in a quotation
        quoted = '"' in text  # someone's words: "Okay, Fitz? This is the girl..."
        alone = set(_ALONE.findall(text)) if quoted else set()
        for name, start, previous, following, opens, two, turn, inside in spans(text):
            counts = self.names.get(name)
            if counts is None:
                counts = self.names[name] = NameCounts()
            if not counts.said:
                counts.first = (self.units, who)
            counts.said += 1
            counts.speakers[who] += 1
            if name in alone:
                counts.alone[who] += 1
            if not start:
                counts.mid_sentence += 1
            if previous:
                counts.before[previous] += 1
            if two:
                counts.before_two[two] += 1
            if following:
                counts.after[following] += 1
            if opens:
                counts.addressed[who] += 1
                if start or quoted:
                    counts.hailed[who] += 1
                vocatives.append(name)
                if not inside:
                    outside.append(name)
            if real:
                counts.out_of_game += 1
            if turn:
                counts.turns += 1
        for one, other in _PAIR.findall(text) if " and " in text else ():
            if one in self.names and other in self.names:
                self.names[one].joined[other] += 1
                self.names[other].joined[one] += 1
        self.said_to = (who, tuple(dict.fromkeys(vocatives)))
        self.said_outside = tuple(dict.fromkeys(outside))


class Span(NamedTuple):
    """A name said in a unit, and what is said around it."""

    name: str
    start: bool  # it opens a sentence
    before: str  # the lower-case word before it, or ""
    after: str  # the lower-case word after it, or ""
    vocative: bool  # said to someone
    before_two: str = ""  # the two lower-case words before it ("city of"), or ""
    turn: bool = False  # given a turn: "Fjord's up", "Fjord is up next", "Vex, you're up"
    inside: bool = False  # in a quotation: someone in the story says it


def spans(text: str) -> list[Span]:
    """Each name of ``text`` (apostrophes already plain) as (name, starts a sentence, the
    lower-case word before it or "", the lower-case word after it or "", said to someone).
    A sentence's opening function word ("So", "The", "And") and a title ("Lord") are no
    part of the name after them: "So Nostoc says" is ``Nostoc``, in the middle of the
    sentence, after ``so``."""
    out: list[Span] = []
    for run in _RUN.finditer(text):
        begin = run.start()
        said = run.group()
        if " " not in said:  # one word, most runs: a name or none
            if _name_word(said):
                out.append(_span(text, begin, [said]))
            continue
        words = said.split(" ")
        parts: list[list[str]] = [[]]
        titled = words[0] in TITLES  # "Lady Kima of Vord": Kima, and Vord
        for word in words:  # "DM", "I" and "OK" end a name; "of" joins two
            if _name_word(word) or (word == "of" and parts[-1] and not titled):
                parts[-1].append(word)
            elif parts[-1]:
                parts.append([])
        parts = [part[:-1] if part and part[-1] == "of" else part for part in parts]
        if len(parts) > 1 or len(parts[0]) != len(words):
            for part in parts:
                if part:
                    at = text.index(" ".join(part), begin)
                    out.append(_span(text, at, part))
            continue
        out.append(_span(text, begin, words))
    return out


def _span(text: str, begin: int, words: list[str]) -> Span:
    before = words_before(text, begin)
    two = ""
    if before is None:
        start, previous = True, ""
    else:
        earlier, word, gap = before
        start = bool(_BREAK.search(gap))
        previous = "" if start else word.lower()
        if previous and earlier:
            two = f"{earlier.lower()} {previous}"
    while len(words) > 1 and (words[0] in TITLES or (start and words[0].lower() in OPENERS)):
        begin += len(words[0]) + 1
        two = f"{previous} {words[0].lower()}" if previous else ""
        previous, start, words = words[0].lower(), False, words[1:]
    end = begin + len(" ".join(words))
    name = " ".join(words)
    if name.endswith("'s"):
        name = name[:-2]
    following = _AFTER.match(text, end)
    after = "" if following is None else following.group(1).lower()
    turn = _TURN.match(text, begin + len(name)) is not None
    inside = text.count('"', 0, begin) % 2 == 1  # straight quotes, as ``_ALONE`` reads
    return Span(name, start, previous, after, _vocative(text, begin, end, start), two, turn, inside)


# A turn given to a name: "Fjord's up", "that finishes Fjord's turn", "It's now Fjord's
# go", "Fjord is up next" (C2E025), "Vex, you're up" (C1E002).
_TURN = re.compile(r"(?:'s (?:turn|go|up)|,? (?:is|you're|you are) up)\b")


def words_before(text: str, begin: int) -> tuple[str, str, str] | None:
    """The word before ``text[begin:]`` (within ``LOOK_BEHIND`` characters), the word
    before that when only spaces part them (or ""), and what lies between the word and
    ``begin``; ``None`` when no word comes before. Read backwards: one ``match`` from the
    name, not a search of every place in the characters before it."""
    found = _BEFORE_REVERSED.match(text[max(0, begin - LOOK_BEHIND) : begin][::-1])
    if found is None:
        return None
    gap, word, earlier = found.groups()
    return (earlier or "")[::-1], word[::-1], gap[::-1]


def _vocative(text: str, begin: int, end: int, start: bool) -> bool:
    """Whether the name is said to someone: opening a sentence before a comma or question
    mark ("Grog, what do you do?"), closing one after a comma ("Thank you, Brenna."), or
    after an opening word and before a comma ("All right, Vex, you're up.", C1E002)."""
    following = text[end : end + 1]
    if start:  # not an echo: "Misses, yeah." (C1E060), "Story Mode, yeah."
        echo = _AFTER.match(text, end)
        return following == "?" or (
            following == "," and (echo is None or echo.group(1).lower() not in _ASSENT)
        )
    if not text[:begin].rstrip().endswith(","):
        return False
    return following in ("", ".", "!", "?") or (
        following == "," and _CALL.search(text, max(0, begin - 24), begin) is not None
    )


# An opening word before the comma of a name said to someone: "All right, Vex, you're up."
_CALL = re.compile(
    r"(?:\A|[.!?\"]\s*|--\s*)(?:all right|alright|okay|ok|so|now|and|well|hey|then|right),\s*\Z",
    re.IGNORECASE,
)


_ASSENT = frozenset(["yeah", "yes", "yep", "okay", "ok", "right", "sure", "exactly"])


def _name_word(word: str) -> bool:
    return _capitalized(word) and word != "I" and not word.startswith("I'")


# Words of a unit about the real world (the show, its sponsors, its audience): a name
# said mostly in such units is no name of the game's world ("Wyrmwood Gaming").
REAL_WORLD = _words(
    "sponsor sponsors sponsored sponsoring twitch youtube podcast episode episodes stream "
    "streaming livestream merch merchandise subscribe subscribers subscription tickets "
    "panel convention website tweet twitter instagram reddit patreon fans fan artist "
    "charity donate donations donation promo giveaway discount videos video online "
    "internet netflix album movie tv chatroom channel audience viewers actor actors actress "
    "toys cosplay costume series sequel gameplay "
    # the show's announcements and thanks, the game's editions ("converted over from
    # Pathfinder" to the 5th edition) ("thank you to Ian Phillips ... who has painted
    # the miniatures", "Amanda Mclean for making our awesome graphic for our intermission")
    "announcement announcements appearances artwork con fanart graphic intermission "
    "miniatures edition"
)
# A unit with one of those words is about the real world, but for the words the game's
# narration says too ("a series of marble pillars", C2E001; "the dwarves weren't fans of
# nobody", "twirls the fans", C1E001, C2E001; "the Witcher Series" is the real world's
# still: ``name_kinds``).
_UNIT_REAL = REAL_WORLD - {"series", "fan", "fans"}
# ... and its names, and those words opening a sentence ("Tickets are still available").
REAL_WORLD_NAMES = frozenset(
    ["Twitch", "YouTube", "Youtube", "Reddit", "Twitter", "Instagram", "Patreon"]
    + [word.capitalize() for word in _UNIT_REAL]
)
# Titles before a name: said of the person, no part of the name ("Lord Greyspine" is
# ``Greyspine``, after ``lord``), when a name follows.
TITLES = _words(
    "Lord Lady Sir Dame Captain Cap King Queen Prince Princess Master Mister Mr Mrs Ms "
    "Miss Madam Baron Baroness Duke Duchess Count Countess General Commander Sheriff "
    "Brother Sister Father Mother Uncle Aunt Cousin Grandmother Grandfather Professor "
    "Doctor Dr Archmage Arcanist Lieutenant Sergeant Chief Elder High Herr Frau Madame Mistress "
    "Missus Warden Watcher Marquis Emperor Empress Regent Lawmaster Archduke Grand Keeper "
    "Starosta"
)
# Words that open a sentence before a name: never part of it.
OPENERS = _words(
    "a an and as at but by for from if in into oh okay on or our so the then there this "
    "to well what when where while with yeah yes you your now no hey hi hello thanks "
    # a question word or a pronoun with its verb: "Where's Thompson?"
    "here's how's it's let's that's there's what's where's who's"
)

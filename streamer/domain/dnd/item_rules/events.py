"""The item events of one unit's text, sentence by sentence (the forms ``rules`` lists)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from streamer.domain.dnd.item_rules.context import ItemRules
from streamer.domain.dnd.item_rules.phrases import MARKS, Item, item_at, sums_after, tokens
from streamer.domain.dnd.item_rules.verbs import (
    ACQUIRES,
    FIND_SEQUENCES,
    FINDS,
    GATE_WORDS,
    GIVES,
    HANDS,
    NARRATED_USES,
    PROGRESSIVE,
    USES,
)
from streamer.domain.dnd.spell_rules.text import words_of

SENTENCE = re.compile(r"[^.!?]+[.!?]*")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})

_BETWEEN = words_of("also then now do quickly eventually finally")
_FIRST = frozenset({"i", "i'll", "i'm"})
_HERE = frozenset({"here's", "here"})
_SPEAKS = _FIRST | _HERE
_AFTER_I = words_of("will just then also quickly immediately now")
# Before "I" in its clause, or right after it: not (yet) an event
_BLOCKERS = words_of(
    "if can could would should might may must can't couldn't won't wouldn't don't "
    "didn't not never when whenever unless until whether let's lets maybe probably "
    "perhaps want wanna gonna going try tried was were had i'd could've to"
)
_POSSESSIVES = words_of("my your his her their our")
_OBJECT_PRONOUNS = frozenset({"him", "her", "them", "it"})
# The catalog's kinds an item must be of to be used (``used``); weapons and armor never
USABLE = words_of(
    "potion scroll wondrous-item ring wand staff rod poison adventuring-gear tools ammunition"
)

# Gear the catalog files as a weapon that is used up or lit, not (only) swung
USED_GEAR = frozenset({"Acid", "Alchemist's Fire", "Holy Water", "Net", "Oil", "Torch"})
# Spellcasting foci: held to cast, never ``used`` (``as you throw your orb`` is a spell)
FOCI = frozenset(
    {"Amulet", "Crystal", "Emblem", "Orb", "Reliquary", "Rod", "Sprig of mistletoe", "Staff"}
    | {"Totem", "Wand", "Wooden staff", "Yew wand"}
)

TO_NPC = ""  # ``addressee``: an NPC
TO_PLAYER = "\0"  # ``addressee``: the party player who spoke before, unnamed
# A name said to someone: at the start of the text before a comma, or after a comma at the
# end of a sentence ("Jorge, here." "Here you go, Jorge.")
_VOCATIVE = re.compile(r"(?:^|,\s*)([A-Z][a-z]+(?:'[a-z]+)?)(?=\s*(?:[.!?]|$)|,(?!\s*[A-Z]))")
_FIRST_PERSON = words_of("i i'm i'll i'd i've me my mine myself")
_NOT_NAMES = words_of(
    "okay ok yes yeah no sure here oh well hey thanks thank please sorry guys man dude sir "
    "ma'am buddy friend look listen wait right fine alright so and but i matt"
)


class Event(NamedTuple):
    item: str  # as spoken; the catalog canonicalizes it
    event: str
    holder: str | None


def events(
    text: str,
    rules: ItemRules,
    character: str | None,
    *,
    narrator: bool,
    after_player: bool | None,
) -> list[Event]:
    """The events of ``text``. ``character``: the speaker's character (or label, without a
    party), who an ``I`` is; ``narrator``: the speaker plays no party character;
    ``after_player``: whether the unit before is a party player's (``None``: no party)."""
    found: list[Event] = []
    you = addressee(text, rules.characters, after_player) if character is not None else None
    for sentence in SENTENCE.findall(text.translate(APOSTROPHES)):
        if sentence.rstrip().endswith("?"):
            continue
        words = tokens(sentence)
        if GATE_WORDS.isdisjoint(words):
            continue  # no verb of the rules in this sentence
        for index, word in enumerate(words):
            if narrator and word == "you":
                found.extend(_found(words, index, rules))
            elif narrator and word in HANDS:
                found.extend(_handed(words, index, rules))
            if character is None or word not in _SPEAKS or _blocked(words, index):
                continue
            if word in _FIRST:
                found.extend(_first_person(words, index, rules, character, you))
            elif not narrator and (word == "here's" or words[index + 1 : index + 2] == ["is"]):
                # "Here's one platinum."
                start = index + (2 if word == "here" else 1)
                # the holder is said only by a first-person word (the support check's rule)
                giver = character if _FIRST_PERSON.intersection(words) else None
                found.extend(_to_you(words, start, rules, giver, you))
    return found


def addressee(text: str, characters: Mapping[str, str], after_player: bool | None) -> str | None:
    """Who ``you`` is in a party player's unit: the party character addressed by name
    (``Here you go, Grog.``); ``TO_NPC`` for anyone else addressed by name (``Here you go,
    Jorge.``) or, unnamed, when the unit before is not a party player's (the game master
    voices an NPC); ``TO_PLAYER`` when it is; ``None`` without a party."""
    if after_player is None:
        return None
    for match in _VOCATIVE.finditer(text.translate(APOSTROPHES)):
        name = match.group(1)
        if name.lower() in _NOT_NAMES:
            continue
        return characters.get(name.lower(), TO_NPC)
    return TO_PLAYER if after_player else TO_NPC


def _clause_start(words: Sequence[str], index: int) -> int:
    start = index
    while start > 0 and words[start - 1] not in MARKS:
        start -= 1
    return start


def _blocked(words: Sequence[str], index: int) -> bool:
    before = words[_clause_start(words, index) : index]
    return bool(_BLOCKERS.intersection(before)) or bool(
        _BLOCKERS.intersection(words[index + 1 : index + 2])
    )


def _addressed(words: Sequence[str], index: int, characters: Mapping[str, str]) -> str | None:
    """``Percy, you find``: the party character named before the comma before ``you``."""
    if index >= 2 and words[index - 1] == ",":
        for size in (2, 1):
            if index - 1 - size >= 0:
                name = characters.get(" ".join(words[index - 1 - size : index - 1]))
                if name is not None:
                    return name
    return None


def _worth(item: Item, rules: ItemRules, *, amount: bool = False) -> bool:
    """Whether an item found or taken is worth a record: a magic item, or money (with an
    amount, when ``amount``); everyday gear found ("you find books on farming") is not."""
    if rules.catalog.kind(item.canonical) is None:  # money
        return not amount or item.canonical[0].isdigit()
    return rules.catalog.magic(item.canonical)


def _item_list(words: Sequence[str], start: int, rules: ItemRules) -> list[Item]:
    items: list[Item] = []
    index = start
    while True:
        item = item_at(words, index, rules.catalog)
        if item is None:
            return items
        items.append(item)
        index = item.end
        while index < len(words) and words[index] in (",", "and"):
            index += 1


def _found(words: Sequence[str], index: int, rules: ItemRules) -> list[Event]:
    verb = index + 1
    while verb < len(words) and words[verb] in _BETWEEN:
        verb += 1
    end = None
    if verb < len(words) and words[verb] in NARRATED_USES:
        return _narrated_use(words, index, verb, rules)
    if verb < len(words) and words[verb] in FINDS:
        end = verb + 1
    elif tuple(words[verb : verb + 2]) in FIND_SEQUENCES:
        end = verb + 2
    if end is None:
        return []
    if words[end : end + 1] and words[end] in _POSSESSIVES:
        return []  # "you pull out your arrow": already theirs
    holder = _addressed(words, index, rules.characters)
    items = [item for item in _item_list(words, end, rules) if _worth(item, rules)]
    seen = {(item.start, item.end) for item in items}
    for money in sums_after(words, end):
        if not any(start <= money.start < stop for start, stop in seen):
            items.append(money)
    items.sort(key=lambda item: item.start)
    return [Event(item.spoken, "acquired", holder) for item in items]


def _usable(item: Item, rules: ItemRules) -> bool:
    """Whether ``item`` is of a kind that is used up or activated (``USABLE``,
    ``USED_GEAR``), and no spellcasting focus (``FOCI``)."""
    if item.canonical in FOCI:
        return False
    return rules.catalog.kind(item.canonical) in USABLE or item.canonical in USED_GEAR


def _narrated_use(words: Sequence[str], index: int, verb: int, rules: ItemRules) -> list[Event]:
    """``As you throw the ball bearing``, ``you click your Boots of Haste``: the game master
    tells a party player's use of an item that is used up or activated (``USABLE``), in a
    clause with no condition or modal (``if you drink``, ``you can use``)."""
    if _blocked(words, index):
        return []
    start = verb + 1 + (words[verb + 1 : verb + 2] == ["your"])
    item = item_at(words, start, rules.catalog)
    if item is None or not _usable(item, rules):
        return []
    return [Event(item.spoken, "used", _addressed(words, index, rules.characters))]


def _handed(words: Sequence[str], index: int, rules: ItemRules) -> list[Event]:
    if index + 1 >= len(words):
        return []
    receiver, start = _receiver(words, index + 1, rules.characters)
    if start is None or receiver == "":
        return []
    item = item_at(words, start, rules.catalog)
    if item is None or not _worth(item, rules):
        return []
    subject = rules.characters.get(words[index - 1]) if index else None
    event = "transferred" if subject is not None and receiver is not None else "acquired"
    return [Event(item.spoken, event, receiver)]


def _receiver(
    words: Sequence[str], start: int, characters: Mapping[str, str]
) -> tuple[str | None, int | None]:
    """Who is handed something at ``words[start]``: ``(character, next index)``; ``you``
    is ``(None, ...)``; ``("", ...)``: someone else; ``(None, None)``: no one."""
    if start >= len(words):
        return None, None
    if words[start] == "you":
        return None, start + 1
    for size in (2, 1):
        name = characters.get(" ".join(words[start : start + size]))
        if name is not None:
            return name, start + size
    if words[start] in _OBJECT_PRONOUNS:
        return "", start + 1
    return None, None


def _first_person(
    words: Sequence[str],
    index: int,
    rules: ItemRules,
    character: str,
    you: str | None,
) -> list[Event]:
    verb = index + 1
    while verb < len(words) and words[verb] in _AFTER_I:
        verb += 1
    if verb >= len(words):
        return []
    word = PROGRESSIVE.get(words[verb], words[verb]) if words[index] == "i'm" else words[verb]
    start = verb + 1
    if word == "pick" and words[start : start + 1] == ["up"]:
        word, start = "take", start + 1
    if word in ACQUIRES:
        if words[start : start + 1] and words[start] in _POSSESSIVES | {"out", "off"}:
            return []  # "I take my staff", "I take out my flute": already theirs
        item = item_at(words, start, rules.catalog)
        if item is None or not _worth(item, rules, amount=True):
            return []
        if words[item.end : item.end + 1] in (["out"], ["off"]):
            return []
        return [Event(item.spoken, "acquired", character)]
    if word in USES:
        item = item_at(words, start, rules.catalog)
        if item is None or not _usable(item, rules):
            return []
        return [Event(item.spoken, "used", character)]
    if word in GIVES and not _promised(words, index, verb):
        return _given(words, start, rules, character, you, pays=word == "pay")
    return []


def _promised(words: Sequence[str], index: int, verb: int) -> bool:
    """``I'll give you``, ``I will give``: an offer in talk, not (yet) a handing over."""
    return words[index] == "i'll" or "will" in words[index + 1 : verb]


def _given(
    words: Sequence[str],
    start: int,
    rules: ItemRules,
    character: str,
    you: str | None,
    *,
    pays: bool,
) -> list[Event]:
    item = item_at(words, start, rules.catalog)
    if item is not None:  # "I give the potion to Grog", "I pay 5 gold", "I toss a coin over"
        to = item.end + (words[item.end : item.end + 1] == ["over"])
        if words[to : to + 1] != ["to"]:
            if not _ends_here(words, item.end):
                return []
            if pays:
                return [Event(item.spoken, "lost", character)]
            return _to_you(words, item.start, rules, character, you, item)
        receiver, after = _receiver(words, to + 1, rules.characters)
        if after is None and words[to + 1 : to + 2] == ["the"]:
            receiver, after = "", to + 2
    else:  # "I give Grog the potion"
        receiver, after = _receiver(words, start, rules.characters)
        if after is None and words[start : start + 1] == ["the"]:
            receiver, after = "", start + 2
        item = None if after is None else item_at(words, after, rules.catalog)
    if item is None or after is None:
        return []
    if receiver:
        return [Event(item.spoken, "transferred", receiver)]
    if receiver is None:
        return _to_you(words, item.start, rules, character, you, item)
    return [Event(item.spoken, "lost", character)]


def _ends_here(words: Sequence[str], index: int) -> bool:
    """Nothing said after an item handed over but ``over`` or the sentence's end."""
    return index >= len(words) or words[index] in MARKS or words[index] == "over"


def _to_you(
    words: Sequence[str],
    start: int,
    rules: ItemRules,
    character: str | None,
    you: str | None,
    item: Item | None = None,
) -> list[Event]:
    """An item given to ``you`` (``addressee``): a party character named receives it
    (``transferred``); the party player who spoke before, unnamed (``transferred``, holder
    ``null``); an NPC (``lost``); nobody known, nothing."""
    item = item_at(words, start, rules.catalog) if item is None else item
    if item is None or you is None:
        return []
    if you == TO_NPC:
        return [Event(item.spoken, "lost", character)]
    return [Event(item.spoken, "transferred", None if you == TO_PLAYER else you)]

"""The party without a glossary: which of the session's names are the players' own characters.

With no glossary's ``party``, the proper-noun miner (``world_names.classify``) asks
``party_names`` which of the session's names (each with its whole-session ``NameCounts``)
are the party's; ``owner(counts, gm)`` is the player (a speaker label) whose character a
name is, or ``None``:

0. **Played**: a name said after "playing" ("I'm playing Vax'ildan", LIAM in C1E001;
   "Taliesin Jaffe, playing Percival Fredrickstein...", C1E060), and every name whose
   first word (before an apostrophe) begins it or is begun by it, three letters at least
   ("Vax").
1. **Answered**: the name, said to someone, is answered next by one player more often than
   by anyone else, the game master included, at least twice ("Percy, what do you do?" and
   TALIESIN speaks next, three times in C1E001), once at least after the game master's own
   words, outside a quotation: the game master asks the table. Not "Rissa" (C2E025), said
   to by players ("Rissa? Sorry.") and by NPCs in the game master's voice ('"Rissa, would
   you mind..."'), whom SAM happened to answer twice.
2. **Their own words**: one player says the name at least three times, more often than the
   other players together and at least as often as the game master, and answers it when
   it is said to someone more often than any other player does, at least once ("Scanlan
   sings...", "Scanlan considers..." from SAM, who says "Scanlan" 15 times in C1E001, the
   other players 13, the game master 6: a player telling their own character's actions).
3. **Other forms**: a name whose first word (before an apostrophe) is an owned name's, or
   begins it or is begun by it, three letters at least, when the owner says it as often as
   any player does ("Tiberius Stormwind", said 4 times by ORION, with ORION's "Tiberius" in
   C1E001; "Mollymauk Tealeaf" with TALIESIN's "Molly" in C2E001).

4. **Turns**: a name given a turn at least three times ("Fjord's up", "That finishes
   Fjord's turn", "Fjord is up next": C2E025, where Fjord's player is away and another
   rolls for him; "Vex, you're up"), and every name whose first word begins it or is begun
   by it, as for rule 0. The game master gives an ally's turn now and then, twice at most
   in the episodes read (Marius, C2E035).

A name with a place word after its first word ("Greyspine Manor") is never a character. The
players themselves are speaker labels, which the miner never takes (``world_names``). The
game master is ``world_names.game_master``: the speaker of the most units; a player is any
other speaker whose label names one speaker (not "LAURA, SAM"). Deterministic: counts only,
ties broken by the label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from streamer.domain.dnd.name_cues import PLACE_WORDS
from streamer.domain.dnd.proper_nouns import NameCounts

ANSWERED = 2  # the owner answers the name said to someone at least this often
OWN_WORDS = 3  # or says it at least this often
NICKNAME = 4  # letters of an owned name that begins a longer one, whoever says it
SHORTEST = 3  # letters of a first word that another form of an owned name shares
TURNS = 3  # a name given a turn this often is a character of the party


def party_names(names: Mapping[str, NameCounts], gm: str) -> frozenset[str]:
    """The names of ``names`` (name -> its counts) that are the players' own characters:
    those with an ``owner``, and the other forms of theirs (rule 3)."""
    owners = {name: None if _place(name) else owner(counts, gm) for name, counts in names.items()}
    firsts = _by_prefix(
        (_first(name), who) for name, who in sorted(owners.items()) if who is not None
    )
    played = _by_prefix(
        (_first(name), "")
        for name, counts in names.items()
        if _played(name, counts) or _turns(name, counts)
    )
    return frozenset(
        name
        for name, counts in names.items()
        if owners[name] is not None
        or _form_of(_first(name), counts, firsts.get(_first(name)[:SHORTEST], {}), gm)
        or any(_begins(_first(name), first) for first in played.get(_first(name)[:SHORTEST], {}))
    )


def _by_prefix(pairs: Iterable[tuple[str, str]]) -> dict[str, dict[str, str]]:
    """First words (and their owners) by their first three letters: two first words of
    which one begins the other share them (``_begins``), so only those are compared."""
    found: dict[str, dict[str, str]] = {}
    for first, who in pairs:
        found.setdefault(first[:SHORTEST], {})[first] = who
    return found


def _played(name: str, counts: NameCounts) -> bool:
    """Rule 0: said after "playing" ("I'm playing Vax'ildan"), no place."""
    return counts.before["playing"] > 0 and not _place(name)


def _turns(name: str, counts: NameCounts) -> bool:
    """Rule 4: given a turn at least three times, and said in the middle of a sentence as
    often (no "Let's go", "What's up"), no place."""
    return min(counts.turns, counts.mid_sentence) >= TURNS and not _place(name)


def _begins(word: str, first: str) -> bool:
    """One of two first words begins the other, three letters at least."""
    long_enough = len(word) >= SHORTEST <= len(first)
    return long_enough and (word.startswith(first) or first.startswith(word))


def _place(name: str) -> bool:
    """A place word after the name's first word ("Pillow Trove"): never a character."""
    return not PLACE_WORDS.isdisjoint(name.split()[1:])


def _first(name: str) -> str:
    return name.split()[0].split("'")[0]


def _form_of(word: str, counts: NameCounts, firsts: Mapping[str, str], gm: str) -> bool:
    """Rule 3: a name's first word (before an apostrophe) is an owned name's, or one begins
    the other, three letters at least ("Vax" and "Vax'ildan", "Molly" and "Mollymauk"),
    and no player says it more often than that name's owner; or a name begun by an owned
    name of four letters at least, said to someone and answered by its owner, whoever says
    it ("Beauregard" of MARISHA's "Beau", said by LIAM in C2E035)."""
    players = [n for who, n in counts.speakers.items() if _player(who, gm)]
    most = max(players, default=0)
    return any(
        (_begins(word, first) and counts.speakers[who] == most > 0)
        or (len(first) >= NICKNAME < len(word) and word.startswith(first) and counts.answered[who])
        for first, who in firsts.items()
    )


def owner(counts: NameCounts, gm: str) -> str | None:
    """The player whose character the name counted by ``counts`` is, or ``None``."""
    return _answered(counts, gm) or _own_words(counts, gm)


def _player(who: str, gm: str) -> bool:
    return bool(who) and who != gm and "," not in who


def _top(counter: Counter[str]) -> tuple[str, int, int]:
    """The most frequent key (ties: the first label), its count and the next one's."""
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    if not ranked:
        return "", 0, 0
    return ranked[0][0], ranked[0][1], ranked[1][1] if len(ranked) > 1 else 0


def _answered(counts: NameCounts, gm: str) -> str | None:
    """Rule 1: answered next by one player, more than by anyone else, at least twice, once
    at least after the game master's own words."""
    who, top, second = _top(+counts.answered)
    if _player(who, gm) and top >= ANSWERED and top > second and counts.calls[(gm, who)]:
        return who
    return None


def _own_words(counts: NameCounts, gm: str) -> str | None:
    """Rule 2: said by one player at least three times, more often than by all other
    players together and than by the game master, and answered by them more often than by
    any other player."""
    players = Counter({who: n for who, n in counts.speakers.items() if _player(who, gm)})
    who, top, _ = _top(+players)
    others = sum(players.values()) - top
    if not who or top < OWN_WORDS or top <= others or top < counts.speakers[gm]:
        return None
    answered = counts.answered[who]
    if not answered or any(
        n >= answered
        for other, n in (+counts.answered).items()
        if other != who and _player(other, gm)
    ):
        return None
    return who

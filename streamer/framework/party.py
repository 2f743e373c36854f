"""The party: who plays whom, looked up the one way every stage looks a speaker up.

A ``Party`` maps a speaker (a player, as the transcript names them) to the character they
play. It is built once, from the glossary's ``party`` section or from the records of a
bundle's party-roster lane (both lists of ``{player, character}``: ``Party.of_records``),
and read by extraction's rules (``RulesContext``), normalization's support check and the
report, all by the *name key* (``streamer.framework.names``): ``VEX'AHLIA``, ``vex\u2019ahlia``
(a curly apostrophe) and `` Vex'ahlia `` are one speaker. It establishes no fact.

A malformed entry (not a mapping with a string ``player`` and a string ``character``)
makes ``of_records`` raise, naming its JSON path, never its values: a glossary's is a
configuration error (exit status 2) wherever the party is read (extraction, normalization,
the report). A run that publishes the party-roster lane checks that lane's records first,
with the lane's own message (``glossary: $.party[0].character is required``). Two entries
whose players have one name key: the later one holds (as a YAML mapping would).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from streamer.framework.errors.types import ConfigurationError, StreamerError
from streamer.framework.names import name_key

_SEEN_MAX = 4096


class Party(Mapping[str, str]):
    """Speaker -> character, compared by name key: ``party["laura"]`` and
    ``party.character_of(" Laura ")`` find ``LAURA``'s character. Iterating gives the
    players as their entries write them (the first spelling of a name key, in order).
    Immutable."""

    __slots__ = ("_by_key", "_seen", "_written")

    def __init__(self, characters: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = characters.items() if isinstance(characters, Mapping) else characters
        by_key: dict[str, str] = {}
        written: dict[str, str] = {}
        for player, character in pairs:
            key = name_key(player)
            by_key[key] = character
            written.setdefault(key, player)
        self._by_key = by_key
        self._written = written
        self._seen: dict[str, str | None] = {}  # speaker as written -> character_of

    @classmethod
    def of_records(
        cls,
        records: Sequence[Any],
        where: str,
        error: type[StreamerError] = ConfigurationError,
    ) -> Party:
        """The party of ``{player, character}`` records; ``where`` is the list's JSON path
        as a message names it (``glossary: $.party``); a malformed entry raises ``error``."""
        pairs: list[tuple[str, str]] = []
        first: dict[str, int] = {}  # a player's name key -> the entry that lists them
        for index, entry in enumerate(records):
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("player"), str)
                and isinstance(entry.get("character"), str)
            ):
                raise error(f"{where}[{index}] must be a mapping with player and character")
            seen = first.setdefault(name_key(entry["player"]), index)
            if seen != index:
                path = where.rsplit(": ", 1)[-1]  # the JSON path, without the file
                raise error(
                    f"{where}[{index}]: its player is also listed in {path}[{seen}]",
                    hint="a player plays one character in a session; compared by name key",
                )
            pairs.append((entry["player"], entry["character"]))
        return cls(pairs)

    def character_of(self, speaker: str | None) -> str | None:
        """The character ``speaker`` plays (compared by name key), or ``None``."""
        if speaker is None:
            return None
        try:
            return self._seen[speaker]
        except KeyError:
            character = self._by_key.get(name_key(speaker))
            if len(self._seen) < _SEEN_MAX:  # a transcript has few speakers; a hostile one, not
                self._seen[speaker] = character
            return character

    def as_written(self, speakers: Iterable[str | None]) -> list[tuple[str, str]]:
        """(speaker, character) for every player as written and every one of ``speakers``
        (as written) the party knows, sorted: a table a reader looks a speaker up in
        exactly, with no key of its own (the report's page)."""
        table = {player: self._by_key[key] for key, player in self._written.items()}
        for speaker in speakers:
            if speaker is not None and speaker not in table:
                character = self.character_of(speaker)
                if character is not None:
                    table[speaker] = character
        return sorted(table.items())

    def __getitem__(self, speaker: str) -> str:
        return self._by_key[name_key(speaker)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._written.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def __repr__(self) -> str:
        return f"Party({dict(self.items())!r})"

"""Each speaker's character, resolved for the page: the page looks a speaker up exactly as
its units write it and keys no name itself.

A speaker is a player of the party when their name keys agree (``framework.names``: case,
apostrophe forms and spacing ignored): ``vex'ahlia``, ``VEX\u2019AHLIA``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from streamer.framework.names import name_key


def speaker_characters(party: Mapping[str, str], speakers: Iterable[str]) -> list[list[str]]:
    """``[speaker, character]`` for each of ``speakers`` (as the units write them) who plays
    one in ``party`` (player -> character), sorted by speaker."""
    by_key = {name_key(player): character for player, character in sorted(party.items())}
    found = ((speaker, by_key.get(name_key(speaker))) for speaker in sorted(set(speakers)))
    return [[speaker, character] for speaker, character in found if character is not None]

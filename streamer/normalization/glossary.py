"""The glossary: the group's own auxiliary reference (YAML), given with ``--glossary`` or
``pipeline.normalization.glossary``.

```yaml
party:                       # a section: the records of a kind declaring it (party roster)
  - {player: LAURA, character: "Vex'ahlia"}
  - {player: TRAVIS, character: Taryon, sessions: [C1E085, C1E086]}  # those sessions only
names:                       # canonical name -> aliases, for every name-valued member
  "Vex'ahlia": [Vex, Vexahlia]
spells:                      # an alias section: the group's own names of catalog values
  "Tiny Hut": [hut, "the dome"]
secrets:                     # what a player page leaves out (streamer.framework.secrets)
  names: ["the Chroma Conclave's plan"]
  units: [[t00120, t00134]]
  speakers: ["MATT (aside)"]
```

``names`` is generic; an *alias section* (``spells``) is the ``glossary_aliases`` section of a
registered kind's catalog member, read as ``names`` is (name -> aliases, compared by name
key) and applied to that member before its catalog, by extraction's rules and
normalization alike; every other top-level member must be the ``glossary_section`` of a
registered kind, whose records it holds (validated by the kind itself, later). A ``party``
entry may name the ``sessions`` it belongs to (document IDs: a session is a document); it is
then the party's in those sessions only (``party_of``, ``session_entries``), and the
others' entries hold everywhere. The file is
read with the configuration's YAML loader (duplicate keys rejected). Errors are
configuration errors (exit status 2) naming the glossary file and a JSON path, never a
name: a glossary is as sensitive as the transcript.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamer.configuration.yaml_loader import load_yaml
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.names import name_key
from streamer.framework.party import Party
from streamer.framework.regular_files import MIB, read_regular_text
from streamer.framework.secrets import Secrets
from streamer.normalization.glossary_secrets import SECRETS, parse_secrets
from streamer.normalization.names import Names

GLOSSARY_MAX_BYTES = 1 * MIB  # read whole, as the configuration is
NAMES = "names"


PARTY = "party"  # the glossary's list of {player, character} (design/contract.md)
SESSIONS = "sessions"  # a party entry's sessions (document IDs): the entry holds in those only


@dataclass(frozen=True)
class Glossary:
    """A loaded glossary: its name aliases and its sections (lists of raw records)."""

    names: Names = field(default_factory=Names)
    sections: dict[str, list[Any]] = field(default_factory=dict)
    aliases: dict[str, Names] = field(default_factory=dict)
    where: str = "glossary"  # how messages name it: ``glossary PATH``
    secrets: Secrets = field(default_factory=Secrets)


def load_glossary(
    path: Path, sections: Collection[str], alias_sections: Collection[str] = ()
) -> Glossary:
    """Read and check the glossary at ``path``; ``sections``: the accepted section names
    (lists of records); ``alias_sections``: the accepted alias sections."""
    where = f"glossary {shown_path(path)}"
    text = read_regular_text(
        path,
        GLOSSARY_MAX_BYTES,
        where,
        ConfigurationError,
        missing_hint="check --glossary or pipeline.normalization.glossary",
    )
    try:
        data = load_yaml(text)
    except ConfigurationError as error:
        # The loader's messages start with "configuration"; a duplicate key is a name here,
        # which the message must not repeat.
        duplicate = re.match(r"configuration line (\d+): duplicate key", error.message)
        if duplicate:
            raise ConfigurationError(f"{where} line {duplicate[1]}: duplicate key") from None
        raise ConfigurationError(where + error.message.removeprefix("configuration")) from None
    return parse_glossary(data, sections, where, alias_sections)


def parse_glossary(
    data: Any, sections: Collection[str], where: str, alias_sections: Collection[str] = ()
) -> Glossary:
    if data is None:
        return Glossary(where=where)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{where}: $ must be a mapping")
    accepted = sorted({NAMES, SECRETS, *sections, *alias_sections})
    for key in data:
        if key not in accepted:
            shown = quoted(key) if isinstance(key, str) else "(a non-string key)"
            raise ConfigurationError(
                f"{where}: $: unknown member {shown}", hint="accepted: " + ", ".join(accepted)
            )
    found: dict[str, list[Any]] = {}
    for name in sorted(sections):
        if name in data:
            value = data[name]
            if not isinstance(value, list):
                raise ConfigurationError(f"{where}: $.{name} must be a list")
            if name == PARTY:
                _check_sessions(value, where)
            found[name] = value
    aliases = {
        name: _names(data[name], where, name) for name in sorted(alias_sections) if name in data
    }
    names = _names(data.get(NAMES), where)
    secrets = parse_secrets(data.get(SECRETS), where, names)
    return Glossary(names, found, aliases, where, secrets)


def _names(value: Any, where: str, member: str = NAMES) -> Names:
    if value is None:
        return Names()
    if not isinstance(value, dict):
        raise ConfigurationError(f"{where}: $.{member} must be a mapping of names to alias lists")
    canonical: dict[str, str] = {}
    entry_of: dict[str, tuple[int, int]] = {}  # name key -> (entry, position) first seen
    for index, (name, aliases) in enumerate(value.items()):
        path = f"$.{member} (entry {index + 1})"
        if not isinstance(name, str) or not name.strip():
            raise ConfigurationError(f"{where}: {path}: a name must be a non-empty string")
        if aliases is None:
            aliases = []
        if not isinstance(aliases, list):
            raise ConfigurationError(f"{where}: {path} must be a list of aliases")
        for position, alias in enumerate([name, *aliases]):
            if not isinstance(alias, str) or not alias.strip():
                raise ConfigurationError(
                    f"{where}: {path}[{position - 1}] must be a non-empty string"
                )
            key = name_key(alias)
            if canonical.setdefault(key, name) != name:
                entry, first = entry_of[key]
                raise ConfigurationError(
                    f"{where}: {path}: {_which(position)} is also listed in entry {entry + 1} "
                    f"(as {_which(first)})",
                    hint="names and aliases are compared by their name key "
                    "(case, apostrophe forms and spacing ignored)",
                )
            entry_of.setdefault(key, (index, position))
    return Names(canonical)


def _which(position: int) -> str:
    """An entry's name (position 0) or its alias (1, 2, ...), as a message names it."""
    return "its name" if position == 0 else f"its alias {position}"


def _check_sessions(entries: list[Any], where: str) -> None:
    """Each party entry's ``sessions``, when it has one: a non-empty list of session IDs."""
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or SESSIONS not in entry:
            continue
        sessions = entry[SESSIONS]
        if (
            not isinstance(sessions, list)
            or not sessions
            or not all(isinstance(item, str) and item.strip() for item in sessions)
        ):
            raise ConfigurationError(
                f"{where}: $.{PARTY}[{index}].{SESSIONS} must be a non-empty list of session IDs",
                hint="the document IDs of the sessions the entry belongs to, e.g. "
                "sessions: [C1E001, C1E030]",
            )


def _check_players(entries: list[Any], where: str) -> None:
    """A player listed twice is an error when both entries can hold in one session: one
    of them without ``sessions``, or their ``sessions`` sharing one (a player's new
    character is the same player in other sessions)."""
    first: dict[str, list[tuple[int, frozenset[str] | None]]] = {}
    for index, entry in enumerate(entries):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("player"), str)
            and isinstance(entry.get("character"), str)
        ):
            raise ConfigurationError(
                f"{where}[{index}] must be a mapping with player and character"
            )
        given = entry.get(SESSIONS)
        sessions = None if given is None else frozenset(given)
        for seen, theirs in first.setdefault(name_key(entry["player"]), []):
            if sessions is None or theirs is None or sessions & theirs:
                raise ConfigurationError(
                    f"{where}[{index}]: its player is also listed in $.{PARTY}[{seen}]",
                    hint="a player plays one character in a session; compared by name key "
                    "(a new character: give each entry its sessions: [...])",
                )
        first[name_key(entry["player"])].append((index, sessions))


def session_entries(entries: list[Any], session: str | None) -> list[Any]:
    """The party entries that hold in ``session`` (a document ID), without ``sessions``:
    every entry without ``sessions``, and those whose ``sessions`` name it (none of them
    when ``session`` is ``None``)."""
    kept = []
    for entry in entries:
        if isinstance(entry, dict) and SESSIONS in entry:
            if session not in entry[SESSIONS]:
                continue
            entry = {key: value for key, value in entry.items() if key != SESSIONS}
        kept.append(entry)
    return kept


def party_of(terms: Glossary, session: str | None = None) -> Party:
    """The glossary's ``party`` in ``session`` (``session_entries``; empty without one); a
    malformed entry (of any session), or a player listed twice for one session, is a
    configuration error naming the file (``Party.of_records``)."""
    entries = terms.sections.get(PARTY, [])
    where = f"{terms.where}: $.{PARTY}"
    _check_players(entries, where)  # every entry, of every session, with its own index
    return Party.of_records(session_entries(entries, session), where)

"""The glossary: the group's own auxiliary reference (YAML), given with ``--glossary`` or
``pipeline.normalization.glossary``.

```yaml
party:                       # a section: the records of a kind declaring it (party roster)
  - {player: LAURA, character: "Vex'ahlia"}
names:                       # canonical name -> aliases, for every name-valued member
  "Vex'ahlia": [Vex, Vexahlia]
spells:                      # an alias section: the group's own names of catalog values
  "Tiny Hut": [hut, "the dome"]
```

``names`` is generic; an *alias section* (``spells``) is the ``glossary_aliases`` section of a
registered kind's catalog member, read as ``names`` is (name -> aliases, compared by name
key) and applied to that member before its catalog, by extraction's rules and
normalization alike; every other top-level member must be the ``glossary_section`` of a
registered kind, whose records it holds (validated by the kind itself, later). The file is
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
from streamer.normalization.names import Names

GLOSSARY_MAX_BYTES = 1 * MIB  # read whole, as the configuration is
NAMES = "names"


PARTY = "party"  # the glossary's list of {player, character} (design/contract.md)


@dataclass(frozen=True)
class Glossary:
    """A loaded glossary: its name aliases and its sections (lists of raw records)."""

    names: Names = field(default_factory=Names)
    sections: dict[str, list[Any]] = field(default_factory=dict)
    aliases: dict[str, Names] = field(default_factory=dict)
    where: str = "glossary"  # how messages name it: ``glossary PATH``


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
    accepted = sorted({NAMES, *sections, *alias_sections})
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
            found[name] = value
    aliases = {
        name: _names(data[name], where, name) for name in sorted(alias_sections) if name in data
    }
    return Glossary(_names(data.get(NAMES), where), found, aliases, where)


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


def party_of(terms: Glossary) -> Party:
    """The glossary's ``party`` (empty without one); a malformed entry, or a player listed
    twice, is a configuration error naming the file (``Party.of_records``)."""
    return Party.of_records(terms.sections.get(PARTY, []), f"{terms.where}: $.{PARTY}")

"""Names: canonical names through the glossary's aliases, compared by the documented name
key (``streamer.framework.names``: NFKC, case-folded, apostrophe forms and spacing
ignored)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from streamer.framework.names import name_key


class Names:
    """Canonical names: a glossary name or alias (by name key) gives its glossary name;
    any other name is returned exactly as spoken. It establishes no fact."""

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        self._canonical: dict[str, str] = dict(aliases or {})
        spellings: dict[str, list[str]] = {}
        for key, name in self._canonical.items():
            spellings.setdefault(name, []).append(key)
        self._spellings = {name: tuple(keys) for name, keys in spellings.items()}

    def canonical(self, name: str) -> str:
        return self._canonical.get(name_key(name), name)

    def spellings(self, name: str) -> tuple[str, ...]:
        """The name keys of the glossary name ``name`` and of its aliases (none when the
        glossary does not list it)."""
        return self._spellings.get(name, ())

    def __len__(self) -> int:
        return len(self._canonical)

    def items(self) -> Iterator[tuple[str, str]]:
        """(name key of a name or alias, its glossary name), in the glossary's order."""
        return iter(self._canonical.items())

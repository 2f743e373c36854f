"""What a kind gives the campaign registry: declared by its domain, read by the generic
builder (``streamer.output.registry_builder``).

A kind may declare one of:

- ``CampaignEntries``: its records name entities the registry keeps one entry of across
  sessions (a non-player character, a place, an item), in the registry's ``section``;
  ``name_member`` is the member naming the entity. The kind's name rule
  (``entry_key``): the name's key (``streamer.framework.names.name_key``: NFKC,
  case-folded, apostrophe forms and spacing ignored) without one leading word of
  ``articles`` ("The Iron Hearth Tavern" and "iron hearth tavern" are one entry).
  ``short_names``: a one-word name the glossary does not list joins the one multi-word
  entry of the section whose first word it is, when there is exactly one ("Pumat" joins
  "Pumat Sol"; with "Pumat Sol" and "Pumat Smith" both, "Pumat" stays its own entry).
  ``not_party``: a name that is a party character's (any entry of the glossary's
  ``party``, whatever its ``sessions``) is never an entry of the section.
- ``CampaignCasts``: its records are casts, listed under the character who cast them
  (``caster_member``, a record without one is not listed) with the spell
  (``spell_member``).

Each declaration's ``title`` is what a person reads for its section (the campaign page).
"""

from __future__ import annotations

from dataclasses import dataclass

from streamer.framework.names import name_key


@dataclass(frozen=True)
class CampaignEntries:
    """The kind's records name entities of the registry's ``section``."""

    section: str
    name_member: str
    articles: tuple[str, ...] = ()
    short_names: bool = False
    not_party: bool = False
    title: str = ""

    def entry_key(self, name: str) -> str:
        """The name rule: ``name_key(name)`` less one leading article (never all of it)."""
        key = name_key(name)
        first, _, rest = key.partition(" ")
        return rest if rest and first in self.articles else key


@dataclass(frozen=True)
class CampaignCasts:
    """The kind's records are casts: who cast (``caster_member``) which spell."""

    caster_member: str
    spell_member: str
    title: str = ""


CampaignSpec = CampaignEntries | CampaignCasts

"""The names a party character goes by, as the rules read them from the glossary."""

from __future__ import annotations

from streamer.framework.kinds.extraction_spec import RulesContext
from streamer.framework.names import name_key


def party_name_forms(context: RulesContext) -> dict[str, str]:
    """The names a party character goes by (name key -> character): the character's name
    and its glossary aliases (what the support check accepts as saying the caster); a
    form two characters share is dropped."""
    forms: dict[str, set[str]] = {}
    for character in context.party.values():
        spoken = {character}
        canonical = context.names.get(name_key(character), character)
        spoken.update(alias for alias, name in context.names.items() if name == canonical)
        for form in spoken:
            forms.setdefault(name_key(form), set()).add(character)
    return {form: next(iter(names)) for form, names in forms.items() if len(names) == 1}

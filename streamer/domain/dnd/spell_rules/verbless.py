"""The casts said without a verb, by a spoken name that is not an ordinary word
(``NameForms``): the name used as a verb, in the first person (``I'll Misty Step``) or as
an imperative with a target (``Greater Restoration on Grog``) (``names_as_verbs``); a
player's unit that is the name alone (``Oh yes, Hunter's Mark.``) (``bare_name``)."""

from __future__ import annotations

from streamer.domain.dnd.spell_rules.names import NameForms
from streamer.domain.dnd.spell_rules.text import (
    ADVERBS,
    BLOCKERS,
    Found,
    Utterance,
    clause_before,
    is_question,
    words_of,
)

# What may stand before a spell name used as a verb in the first person
_FIRST_PERSON_LEADS = (
    ("i",),
    ("i'll",),
    ("i", "will"),
    ("i'm", "going", "to"),
    ("i", "am", "going", "to"),
    ("i'm", "gonna"),
)
# ... before an imperative at the start of its clause, and the target that must follow it
_IMPERATIVE_LEADS = words_of("and then so okay ok yes yeah also now just first")
_TARGET_ADVERBS = words_of("right directly straight")
_TARGETS = words_of(
    "on at onto into him her it them us me myself yourself himself herself itself "
    "themselves ourselves"
)
# What a spell's name said alone may start with ("Oh yes, Hunter's Mark.")
_BARE_LEADS = words_of("oh yes yeah yep okay ok um uh so well and then just")


def names_as_verbs(said: Utterance, forms: NameForms) -> list[Found]:
    """A spoken name used as a verb, not blocked and not in a question: after a
    first-person lead (the speaker's character casts) or as an imperative at the start of
    its clause with a target after it (the caster is not said)."""
    found: list[Found] = []
    text, lowered, word_at = said.text, said.lowered, said.word
    firsts = forms.firsts
    index = 0  # the first word after the last name found
    # the words ``at`` may read a name from: a name's first word, or a possessive
    for at in [i for i, w in enumerate(lowered) if w in firsts or (w[-2:] == "'s" and len(w) > 2)]:
        if at < index:
            continue
        index = at
        match = forms.at(lowered, index)
        if match is None:
            continue
        spell, end = match
        start = word_at(index).start()
        stop = word_at(end - 1).end()
        before = clause_before(text, start)
        after = lowered[end] if end < len(lowered) else None
        if after in _TARGET_ADVERBS and end + 1 < len(lowered):
            after = lowered[end + 1]
        if not BLOCKERS.intersection(before) and not is_question(text, stop):
            if _first_person_lead(before):
                found.append(Found(start, stop, spell, said.speaker))
            elif _imperative(before, after):  # no "I": the caster is not said
                found.append(Found(start, stop, spell, None))
        index = end
    return found


def _first_person_lead(before: list[str]) -> bool:
    words = before[:-1] if before and before[-1] in ADVERBS else before
    return any(tuple(words[-len(lead) :]) == lead for lead in _FIRST_PERSON_LEADS)


def _imperative(before: list[str], after: str | None) -> bool:
    """At the start of its clause (only a few leading words), then a target."""
    return after in _TARGETS and all(word in _IMPERATIVE_LEADS for word in before)


def bare_name(said: Utterance, forms: NameForms) -> Found | None:
    """A unit that says a spell's name and nothing else, after a few leading words ("Oh
    yes, Hunter's Mark.", "Firebolt."): the player naming what they cast (the caster is
    not said: no first-person word). Not a question, not an ordinary word, not a glossary
    alias."""
    if "?" in said.text:
        return None
    lowered = said.lowered
    start = 0
    while start < len(lowered) and lowered[start] in _BARE_LEADS:
        start += 1
    spell = forms.whole(lowered[start:])
    return None if spell is None else Found(0, len(said.text), spell, None)

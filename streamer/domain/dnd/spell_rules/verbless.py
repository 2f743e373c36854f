"""The casts said without a verb, by a spoken name that is not an ordinary word
(``NameForms``): the name used as a verb, in the first person (``I'll Misty Step``) or as
an imperative with a target (``Greater Restoration on Grog``) (``names_as_verbs``); a
player's unit that is the name alone (``Oh yes, Hunter's Mark.``) (``bare_name``)."""

from __future__ import annotations

import re

from streamer.domain.dnd.spell_rules.leave import asks_leave, gives_leave
from streamer.domain.dnd.spell_rules.names import NameForms
from streamer.domain.dnd.spell_rules.text import (
    ADVERBS,
    ASKING_LOOKBACK,
    CLAUSE_BREAK,
    TARGETS,
    WORD,
    Found,
    Utterance,
    blocking,
    clause_before,
    is_filler,
    is_question,
    sentence_before,
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
# A name used as a verb after a preamble, in a first-person sentence: its clause ends with
# ``to`` after one of these ("I want to Misty Step") or in a sentence using what spends a
# turn ("I'm going to use my bonus action to Misty Step", "...the single charge on the
# ring-- no spell slot-- to Misty Step"), or with ``and`` ("I turn around and Misty Step")
# in a clause saying nothing of having or knowing a spell ("I have Fireball and Misty
# Step").
_TO_AFTER = words_of("want wanna like going need")
_SPENT = words_of("action actions reaction slot charge charges point points")
_HAVING = words_of("have has had got know knew learned prepared love like")
_SUBJECTS = words_of("i i'm i'll")
_ASIDE = "--"  # an aside inside a sentence ("on Summer's Eve-- doesn't use a slot-- to")
_MODALS = words_of("can may could")
# What a spell's name said alone may start with ("Oh yes, Hunter's Mark.")
_BARE_LEADS = words_of("oh yes yeah yep okay ok um uh so well and then just")
# ... and the sound it may end with, a gesture: "(snaps)", "-- boom" (one word)
_SOUND = re.compile(r"(?:\(([^()]*)\)|--\s*([\w']+)[.!]*)\s*$")
_NOT_GESTURES = words_of("laughter laughs laughing giggles chuckles cheering groans sighs")


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
        plain = not blocking(before) and not is_question(text, stop)
        if plain and _first_person_lead(before):
            found.append(Found(start, stop, spell, said.speaker))
        elif plain and _imperative(before, after):  # no "I": the caster is not said
            found.append(Found(start, stop, spell, None))
        elif _after_preamble(said, start, stop):
            found.append(Found(start, stop, spell, said.speaker))
        index = end
    return found


def _first_person_lead(before: list[str]) -> bool:
    words = before[:-1] if before and before[-1] in ADVERBS else before
    return any(tuple(words[-len(lead) :]) == lead for lead in _FIRST_PERSON_LEADS)


def _after_preamble(said: Utterance, start: int, stop: int) -> bool:
    """A name used as a verb after a first-person preamble in its sentence ("I'm going to
    use my bonus action to Misty Step"): not blocked before the subject nor in the
    name's clause (an aside between dashes cut off), and a statement, or leave asked
    ("Can I use my bonus action to Misty Step?") that the reply gives."""
    head = sentence_before(said.text, start, ASKING_LOOKBACK)
    clause = head.rsplit(_ASIDE, 1)[-1]
    breaks = list(CLAUSE_BREAK.finditer(clause))
    if breaks:
        clause = clause[breaks[-1].end() :]
    near = [word.lower() for word in WORD.findall(clause)]
    while near and near[-1] in ADVERBS:
        near.pop()
    if not near or near[-1] not in ("to", "and"):
        return False
    words = [word.lower() for word in WORD.findall(head)]
    after_want = len(near) > 1 and near[-2] in _TO_AFTER
    if near[-1] == "to" and not after_want and _SPENT.isdisjoint(words):
        return False
    if near[-1] == "and" and (len(near) < 2 or not _HAVING.isdisjoint(near)):
        return False
    subjects = [i for i, word in enumerate(words) if word in _SUBJECTS]
    if not subjects:
        return False
    blocked = blocking(words[: subjects[-1]]) | blocking(near)
    if not is_question(said.text, stop):
        return not blocked
    reply = said.reply
    if reply is None or not blocked <= _MODALS or not asks_leave(words):
        return False
    return gives_leave(reply)


def _imperative(before: list[str], after: str | None) -> bool:
    """At the start of its clause (only a few leading words), then a target."""
    return after in TARGETS and all(word in _IMPERATIVE_LEADS for word in before)


def bare_name(said: Utterance, forms: NameForms, *, heard: bool = True) -> Found | None:
    """A unit that says a spell's name and nothing else, after a few leading words ("Oh
    yes, Hunter's Mark.", "Firebolt.") and before a sound ("Wall of Stone-- boom.", "Oh,
    light! (snaps)"): the player naming what they cast (the caster is not said: no
    first-person word). Not a question, not a glossary alias. ``heard``: whether it counts
    without a sound (``forms`` of ordinary words: when the game master acknowledges it)."""
    if "?" in said.text:
        return None
    lowered = said.lowered
    sound = _SOUND.search(said.text)
    made = "" if sound is None else (sound.group(1) or sound.group(2)).lower()
    if sound is not None and _NOT_GESTURES.isdisjoint(made.split()):
        lowered = [word.lower() for word in WORD.findall(said.text[: sound.start()])]
    elif not heard:
        return None
    start = 0
    while start < len(lowered) and lowered[start] in _BARE_LEADS:
        start += 1
    while start < len(lowered) and is_filler(lowered[start]):  # "Third level Fireball."
        start += 1
    spell = forms.whole(lowered[start:])
    return None if spell is None else Found(0, len(said.text), spell, None)


def sounded(text: str) -> bool:
    """Whether a text ends with a sound ("(snaps)", "-- boom")."""
    return _SOUND.search(text) is not None

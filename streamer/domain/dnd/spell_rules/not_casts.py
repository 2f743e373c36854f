"""What is said around a cast that makes it no cast of the story (``not_a_cast``): a
suggestion or a plan for someone ("or you know, use Fog Cloud", "maybe we can do a Fog
Cloud", "at some point we'll cast Detect Magic"), a cast recalled ("I've cast Mending on
an object before", "I cast Shield last time"), a spell's rules read aloud ("Fire Bolt, it
says right here, is 120 feet")."""

from __future__ import annotations

from streamer.domain.dnd.spell_rules.text import (
    ADVERBS,
    ASKING_LOOKBACK,
    SENTENCE_END,
    WORD,
    holds,
    sentence_before,
    words_of,
)

# In the sentence before the verb (or the name): a suggestion, a plan not yet one's own
_SUGGESTIONS = (
    ("or", "you", "know"),
    ("how", "about"),
    ("what", "about"),
    ("why", "don't"),
    ("why", "not"),
    ("we", "can"),
    ("we", "could"),
    ("you", "could"),
    ("you", "should"),
    ("should", "i"),
    ("should", "we"),
    ("maybe",),
    ("perhaps",),
    ("we'll",),
    ("we", "will"),
    ("at", "some", "point"),
    ("let's",),  # "Let's cast Pass Without a Trace": the group's plan, not one's cast
    ("let", "us"),
)
# Just before the verb (adverbs skipped), or anywhere in its clause: a cast already made
# ("I've cast", "she has used"; not before a name: "now has Hex on it")
_PERFECT = words_of("i've we've you've they've have has had")
_PARTICIPLES = words_of(
    "cast used done thrown sent fired dropped hit released shot unleashed summoned conjured"
)
_ALREADY = "already"
# After the cast, in its sentence: when it was made ("...last time"); ``before`` ending it
_WHEN_PAST = (
    ("last", "time"),
    ("last", "session"),
    ("last", "week"),
    ("last", "night"),
    ("yesterday",),
    ("earlier",),
    ("in", "the", "past"),
)
# What opens a reason after a cast: the time it names is not the cast's
_REASONS = words_of("because cause 'cause since")
# In the cast's sentence or the next one: the spell's text read out
_READ_ALOUD = (
    ("it", "says"),
    ("says", "here"),
    ("it", "reads"),
    ("spell", "says"),
    ("description",),
    ("according", "to"),
)


def not_a_cast(text: str, start: int, end: int, before: list[str]) -> bool:
    """Whether the cast said from ``start`` to ``end`` of ``text`` (its clause's words
    ``before`` it) is a suggestion, a cast recalled, or read aloud."""
    head = [w.lower() for w in WORD.findall(sentence_before(text, start, ASKING_LOOKBACK))]
    if holds(head, _SUGGESTIONS) or before[:1] == ["or"]:
        return True
    near = [w for w in before if w not in ADVERBS]
    verb = WORD.match(text, start)
    participle = verb is not None and verb.group().lower() in _PARTICIPLES
    if (participle and near and near[-1] in _PERFECT) or _ALREADY in before:
        return True
    sentence, following = _sentences_after(text, end)
    own = _own_clause(sentence)
    if holds(own, _WHEN_PAST) or own[-1:] == ["before"]:
        return True
    return holds(head, _READ_ALOUD) or holds(sentence + following, _READ_ALOUD)


def _own_clause(words: list[str]) -> list[str]:
    """The words after a cast up to a reason given for it ("He's going to cast Eldritch
    Blast because I saw him do that once before": the past is the reason's, not the
    cast's)."""
    for index, word in enumerate(words):
        if word in _REASONS:
            return words[:index]
    return words


def _sentences_after(text: str, end: int) -> tuple[list[str], list[str]]:
    """The words after ``end`` to its sentence's end, and those of the next sentence."""
    stop = SENTENCE_END.search(text, end)
    if stop is None:
        return [w.lower() for w in WORD.findall(text[end:])], []
    rest = text[stop.end() :]
    after = SENTENCE_END.search(rest)
    following = rest if after is None else rest[: after.start()]
    return (
        [w.lower() for w in WORD.findall(text[end : stop.start()])],
        [w.lower() for w in WORD.findall(following)],
    )

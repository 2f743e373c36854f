"""The parts of the spell-cast rules (``streamer.domain.dnd.rules``), by what each finds:
``text`` reads a unit's words, clauses and sentences; ``names`` which spell a run of words
names; ``verbs`` the casts said with a verb, ``verbless`` those said without one; ``leave``
whether a verb is said as a statement, as leave asked and given, or blocked, and whether the
game master refuses; ``caster`` who casts."""

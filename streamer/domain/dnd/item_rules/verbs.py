"""The verbs the item rules read (``events``), and the words the prefilter looks for."""

from __future__ import annotations

from streamer.domain.dnd.spell_rules.text import words_of

FINDS = words_of("find found discover discovered retrieve receive loot")
FIND_SEQUENCES = (("pull", "out"),)
HANDS = words_of("hands gives tosses passes slides throws")
ACQUIRES = words_of("pocket loot buy purchase steal take grab snag collect")
USES = words_of("drink quaff down use activate read throw pour apply uncork light")
GIVES = words_of("give hand pay toss pass slide")
# Said by the game master to a party player: ``you click your boots of haste``
NARRATED_USES = USES | {"click"}
PROGRESSIVE = {
    "giving": "give", "handing": "hand", "paying": "pay", "tossing": "toss",
    "passing": "pass", "sliding": "slide", "drinking": "drink", "using": "use",
}  # fmt: skip
# A unit can tell an event only when its words hold one of these (``prefilter.WordGate``)
GATE_WORDS = (
    FINDS | HANDS | ACQUIRES | NARRATED_USES | GIVES | frozenset(PROGRESSIVE) | {"pull", "pick"}
) | {"here", "here's"}

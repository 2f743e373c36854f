"""The rules' prefilter changes no result: the prefiltered rules give exactly the
candidates of the same rules run on every unit, on the four CRD3 episodes of
``../shared/data/crd3`` (skipped when absent) and on generated text (random words, and the
catalog's spoken forms said in the ways the rules read them); and ``Gate`` and ``WordGate``
find exactly the units a brute-force search finds.

The first two are the contract of whoever changes the rules or the prefilter: run them
before landing (``pytest tests/test_rules_prefilter.py``)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from streamer.domain.dnd.item_rules.rules import ItemEventRules
from streamer.domain.dnd.npc_rules import NpcRules
from streamer.domain.dnd.prefilter import Gate, WordGate
from streamer.domain.dnd.rules import ORDINARY_SPELLS, VERBS, SpellCastRules, SpellRules
from streamer.domain.dnd.spell_catalog import ALIASES, srd_spells
from streamer.framework.kinds.extraction_spec import RulesContext, RulesExtractor, ShownUnit
from tests.support import CRD3

PARTY = {"SAM": "Scanlan Shorthalt", "MARISHA": "Keyleth", "LAURA": "Vex'ahlia"}
NAMES = {
    "vex": "Vex'ahlia",
    "vex'ahlia": "Vex'ahlia",
    "gilmore": "Gilmore",
    "shopkeeper gilmore": "Gilmore",
    "kima": "Kima of Vord",
    "kima of vord": "Kima of Vord",
}
SPELLS = {"the dome": "Tiny Hut", "hut": "Tiny Hut"}


def context() -> RulesContext:
    return RulesContext(PARTY, NAMES, {"spells": SPELLS})


RULES: list[tuple[RulesExtractor, RulesExtractor]] = [
    (SpellCastRules(), SpellCastRules(prefilter=False)),
    (NpcRules(), NpcRules(prefilter=False)),
    (ItemEventRules(), ItemEventRules(prefilter=False)),
]


def check_same(units: list[ShownUnit]) -> list[list[dict[str, Any]]]:
    out = []
    for fast, slow in RULES:
        ctx = context()
        found = fast(units, ctx)
        assert found == slow(units, ctx)
        out.append(found)
    return out


@pytest.mark.parametrize("episode", ["C1E001", "C1E002", "C2E001", "C2E010"])
def test_the_crd3_episodes_give_the_same_candidates(episode: str) -> None:
    path = CRD3 / "episodes" / f"{episode}.json"
    if not path.exists():
        pytest.skip(f"the CRD3 sample ({CRD3}) is absent")
    turns = json.loads(path.read_bytes())["TURNS"]
    units = [
        ShownUnit(
            f"t{turn['NUMBER']:05d}",
            ", ".join(name.strip() for name in turn["NAMES"]) or None,
            " ".join(line.strip() for line in turn["UTTERANCES"]),
        )
        for turn in turns
    ]
    spells = 0
    for start in range(0, len(units), 100):  # chunks of 100 units, as the default plan
        spells += len(check_same(units[start : start + 100])[0])
    assert spells >= 4  # the episodes hold casts: the comparison compared something


TOKENS = [
    "I", "I'll", "I\u2019m", "going", "to", "cast", "Cast", "CASTS", "casting", "ca\u017ft",
    "Fireball", "fire ball", "FIRE-BALL", "Dimension", "Door", "Plane", "Shift", "the", "a",
    "Tasha's", "Hideous", "Laughter", "Pass", "without", "Trace", "Hunter\u2019s", "Mark",
    "Greater", "Restoration", "on", "him", "it", "Grog", "Keyleth", "Scanlan", "you",
    "casts", ",", ".", "?", "!", "tried", "can", "dome", "hut", "Shield", "\u212aima",
    "Kima", "KIMA", "of", "Vord", "Gilmore's", "gilmore", "Vex", "\u0130", "\u00df",
    "\u03a3", "\n", "\x00", "-", "Misty", "Step", "Sacred", "Flame", "\u00e9", "\ufb01reball",
    # v3: the other verbs, names said alone, leave asked and given, refusals
    "use", "throw", "Send", "out", "my", "do", "damage", "Firebolt", "FireBolt", "Oh", "yes",
    "You", "can", "may", "can't", "don't", "have", "Okay", "Go", "ahead", "Sure", "guess",
    "right", "\ufb01rebolt", "Dispel", "Magic",
]  # fmt: skip


@st.composite
def unit_texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(TOKENS), max_size=14))
    glue = draw(st.lists(st.sampled_from([" ", "", "  ", "'", "_"]), min_size=len(words)))
    return "".join(word + sep for word, sep in zip(words, glue, strict=False))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["SAM", "MATT", "laura ", None]), unit_texts()),
        max_size=12,
    )
)
def test_generated_text_gives_the_same_candidates(items: list[tuple[str | None, str]]) -> None:
    units = [ShownUnit(f"u{i}", speaker, text) for i, (speaker, text) in enumerate(items)]
    check_same(units)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abcK\u212a\u0130si\u017f\u00df\x00 ", max_size=12), max_size=8),
    st.lists(st.text(alphabet="abcksi", min_size=1, max_size=3), min_size=1, max_size=4),
)
def test_the_gate_finds_the_units_holding_a_keyword(texts: list[str], keywords: list[str]) -> None:
    expected = [i for i, text in enumerate(texts) if any(k in text.lower() for k in keywords)]
    assert Gate(keywords).units(texts) == expected


def test_a_gate_without_keywords_finds_nothing_and_refuses_bad_keywords() -> None:
    assert Gate(()).units(["anything"]) == []
    for bad in ("", "Cast", "a\x00b"):
        with pytest.raises(ValueError):
            Gate([bad])


def test_a_name_said_with_a_curly_apostrophe_passes_the_gate() -> None:
    # the first gate looked for "hunter's" in the text as said, so this unit never reached
    # the rules
    units = [ShownUnit("u1", "SAM", "I Hunter\u2019s Mark him."), ShownUnit("u2", "SAM", "x")]
    expected = [
        {
            "spell": "Hunter's Mark",
            "caster": "Scanlan Shorthalt",
            "source_refs": [{"start_unit_id": "u1", "end_unit_id": "u1"}],
        }
    ]
    assert SpellCastRules()(units, context()) == expected
    assert SpellCastRules(prefilter=False)(units, context()) == expected


def test_the_spell_gate_reads_the_rules_declarations() -> None:
    gate = SpellRules.of(context()).gate
    assert gate.words == frozenset(VERBS) | {"whirl"}  # "giving Identify a whirl"
    assert gate.words == {"cast", "casts", "casting", "recast", "recasts", "recasting"} | {
        "re-cast",
        "re-casts",
        "re-casting",
        "whirl",
    }
    assert frozenset({"hunter's", "mark"}) in gate.phrases
    assert frozenset({"fireball"}) in gate.phrases
    assert frozenset({"shield"}) not in gate.phrases  # an ordinary word: only after a verb
    texts = [
        "the damage of the image",  # "mage", but not Mage Hand's words
        "my hand, said the mage",  # every word of Mage Hand
        "(laughter) and more laughter",  # one word of Hideous Laughter
        "Tasha\u2019s hideous (laughter)",
        "a broadcast from the castle",
        "casting",
        "fire-ball",  # one word, not Fireball
    ]
    assert gate.units(texts) == [1, 3, 5]


def _spoken_forms() -> list[str]:
    pairs = [*srd_spells().names, *ALIASES]
    return sorted(name for name in pairs if name not in ORDINARY_SPELLS)


FORMS = _spoken_forms()
LEADS = ["I", "I'll", "I\u2019m going to", "Yes, I", "and", "Okay,", "", "Can I", "you", "SAM:"]
AFTER = ["on him", "at it", "into the house", "him?", "", "the guard.", "- on Grog", "!"]


@st.composite
def said_forms(draw: st.DrawFn) -> str:
    """A catalog form said as the rules may read it: a lead, the form (its case, its
    apostrophes and the room between its words changed, an article or a wizard's name
    perhaps), then what follows it."""
    words = draw(st.sampled_from(FORMS)).split()
    spoken = []
    for word in words:
        word = word.replace("'", draw(st.sampled_from(["'", "\u2019", "\u2018", "`"])))
        spoken.append(draw(st.sampled_from([word, word.lower(), word.upper(), word.title()])))
        spoken.append(draw(st.sampled_from([" ", "  ", " the ", ", ", "-", " a ", "\n"])))
    name = "".join(spoken[:-1])
    if draw(st.booleans()):
        name = draw(st.sampled_from(["Tasha's ", "Bigby\u2019s ", "the "])) + name
    verb = draw(st.sampled_from(["", "", "cast ", "Casting ", "casts the "]))
    return f"{draw(st.sampled_from(LEADS))} {verb}{name} {draw(st.sampled_from(AFTER))}"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["SAM", "MATT", "MARISHA", None]),
            st.one_of(said_forms(), unit_texts()),
        ),
        max_size=8,
    )
)
def test_the_catalog_forms_said_give_the_same_candidates(
    items: list[tuple[str | None, str]],
) -> None:
    units = [ShownUnit(f"u{i}", speaker, text) for i, (speaker, text) in enumerate(items)]
    check_same(units)


WORD = re.compile(r"[\w']+(?:-[\w']+)*")
SAME_WORDS = re.compile(r"(?:[\w'])+(?:-[\w']+)*")  # not WORD's text: the anchors' pass
FOLD = str.maketrans({"\u2019": "'", "K": "k"})
WORDS = ["k's", "as", "a\u03c2", "\u03c3i", "i", "a-b"]


def words_of(text: str) -> set[str]:
    """The reference: a text's words, one at a time, as ``WordGate`` documents them."""
    words = set()
    for match in WORD.finditer(text.translate(FOLD)):
        words.add(match.group().lower())
    return words


@st.composite
def word_texts(draw: st.DrawFn) -> str:
    """Words of ``WORDS`` (or other cases and apostrophes of them) between separators,
    or any text of a few awkward characters."""
    alphabet = "aksiK\u212a\u0130\u017f\u03a3\u03c3\u03c2'\u2019-. \x00"
    if draw(st.booleans()):
        return draw(st.text(alphabet=alphabet, max_size=12))
    out = []
    for word in draw(st.lists(st.sampled_from(WORDS), max_size=5)):
        word = draw(st.sampled_from([word, word.upper(), word.title()]))
        out.append(word.replace("'", draw(st.sampled_from(["'", "\u2019"]))))
        out.append(draw(st.sampled_from([" ", ".", "-", "", "\u2019", "\x00", "\u0130"])))
    return "".join(out)


@settings(max_examples=500, deadline=None)
@example(["AS K\u2019S"], [], [["as", "k's"]])  # an apostrophe folded in a phrase's other word
@example(["A\u03a3.I"], ["a\u03c2"], [])  # the sigma lower-cased alone or in the text
@given(
    st.lists(word_texts(), max_size=6),
    st.lists(st.sampled_from(WORDS), max_size=2),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), max_size=3),
)
def test_the_word_gate_finds_the_units_holding_a_word_or_a_phrase(
    texts: list[str], words: list[str], phrases: list[list[str]]
) -> None:
    expected = [
        i
        for i, text in enumerate(texts)
        if words_of(text) & set(words) or any(set(p) <= words_of(text) for p in phrases)
    ]
    # the spaced pass (WORD) on ASCII texts, anchors on the others; anchors on every text;
    # a phrase looked for by its longest word, or by its rarest by a list of frequent words
    for pattern in (WORD, SAME_WORDS):
        for frequent in ((), ["as", "i", "k's"], ["a-b", "k's"]):
            gate = WordGate(words, phrases, pattern, FOLD, frequent)
            assert gate.units(texts) == expected


def test_a_word_gate_refuses_words_it_could_never_find() -> None:
    bad: list[tuple[list[str], list[list[str]]]] = [
        (["Cast"], []),
        (["two words"], []),
        ([], [["ok", "a b"]]),
        ([], [[]]),
    ]
    for words, phrases in bad:
        with pytest.raises(ValueError):
            WordGate(words, phrases, WORD)
    with pytest.raises(ValueError):
        WordGate(["x"], [], re.compile("(x)"))
    assert WordGate([], [], WORD).units(["anything"]) == []


def test_hyperscan_is_loaded_by_the_spell_rules_only() -> None:
    """The commands that read the D&D kinds without running the rules (``evidence``,
    ``bundle``, ``validate``, ``report``) do not load Hyperscan's library at start-up; the
    spell rules load it when they first run."""
    import subprocess
    import sys

    from tests.support import REPO

    script = (
        "import sys\n"
        "import streamer.domain.dnd.kinds, streamer.domain.dnd.rules, streamer.domain.dnd.npc_rules\n"
        "from streamer.domain.dnd.rules import SpellCastRules\n"
        "from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit\n"
        "before = 'hyperscan' in sys.modules\n"
        "SpellCastRules()([], RulesContext({}, {}, {}))\n"
        "print(before, 'hyperscan' in sys.modules)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.split()
    assert shown == ["False", "True"]

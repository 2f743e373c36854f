"""The party without a glossary (``party_inference``): who answers a name said to someone,
each rule on short lines written like the development episodes' (C1E001, C2E001, C2E035),
and the miner keeping a party character out of the NPCs only where no party is given."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from streamer.domain.dnd.party_inference import owner, party_names
from streamer.domain.dnd.proper_nouns import NameCounts, NameSurvey
from streamer.domain.dnd.world_names import classify


def surveyed(lines: Sequence[tuple[str, str]]) -> NameSurvey:
    survey = NameSurvey()
    for speaker, text in lines:
        survey.add(speaker, text)
    return survey


def counts(
    speakers: dict[str, int],
    answered: dict[str, int] | None = None,
    addressed: dict[str, int] | None = None,
    calls: dict[tuple[str, str], int] | None = None,
) -> NameCounts:
    """A name's counts; ``calls`` (caller, answerer): by default each answer came after the
    game master's own words ("MATT")."""
    said = sum(speakers.values())
    answers = answered or {}
    return NameCounts(
        said=said,
        mid_sentence=said,
        speakers=Counter(speakers),
        answered=Counter(answers),
        addressed=Counter(addressed or {}),
        calls=Counter({("MATT", who): n for who, n in answers.items()} if calls is None else calls),
    )


def test_the_survey_counts_who_answers_a_name_said_to_someone() -> None:
    survey = surveyed(
        [
            ("MATT", "Percy, what do you do?"),
            ("TALIESIN", "I aim at the ogre."),
            ("LAURA", "Percy, wait."),
            ("LAURA", "Percy, no!"),  # the same speaker again: no answer
            ("MATT", "Percy nods."),  # said, not to someone: nothing to answer
            ("TALIESIN", "Fine."),
            ("MATT", 'She turns. "Percy, you came."'),  # an NPC says it, in his voice
            ("TALIESIN", "I did."),
        ]
    )
    percy = survey.names["Percy"]
    assert percy.answered == Counter({"TALIESIN": 2, "MATT": 1})
    assert percy.addressed == Counter({"MATT": 2, "LAURA": 2})
    assert percy.calls == Counter({("MATT", "TALIESIN"): 1, ("LAURA", "MATT"): 1})


def test_a_name_said_after_an_opening_word_and_before_a_comma_is_said_to_someone() -> None:
    # C1E002: "All right, Vex, you're up." and LAURA speaks next
    survey = surveyed(
        [
            ("MATT", "All right, Vex, you're up."),
            ("LAURA", "I shoot."),
            ("MATT", "We went to Emon, Whitestone, and back."),  # a list: said to no one
            ("SAM", "Nice."),
        ]
    )
    assert survey.names["Vex"].answered == Counter({"LAURA": 1})
    assert survey.names["Vex"].addressed == Counter({"MATT": 1})
    assert survey.names["Whitestone"].answered == Counter()


def test_the_survey_counts_the_turns_given_to_a_name() -> None:
    survey = surveyed(
        [
            ("MATT", "Fjord's up."),
            ("MATT", "That finishes Fjord's turn. It's now Fjord's go."),
            ("MATT", "Fjord is up next. Vex, you're up after."),
            ("MARISHA", "I'm rolling for Fjord. Fjord is upset."),  # no turn
            ("SAM", "Let's go."),
        ]
    )
    assert survey.names["Fjord"].turns == 4
    assert survey.names["Vex"].turns == 1
    assert survey.names["Let"].turns == 1


def test_rule_4_turns() -> None:
    # C2E025: Fjord's player is away; another rolls for him and the game master gives him
    # his turns. Said by the game master mostly, answered by no player more than another.
    fjord = counts({"MATT": 40, "MARISHA": 23, "SAM": 7}, {"MATT": 5, "MARISHA": 1})
    fjord.turns = 6
    fjordy = counts({"SAM": 2})
    ally = counts({"MATT": 20, "LIAM": 3})  # C2E035's Marius, an ally: two turns
    ally.turns = 2
    lets = NameCounts(said=6, mid_sentence=0, turns=6)  # "Let's go", "Let's up"
    names = {"Fjord": fjord, "Fjordy": fjordy, "Marius": ally, "Let": lets}
    assert party_names(names, "MATT") == {"Fjord", "Fjordy"}


def test_rule_1_answered_by_one_player() -> None:
    # C1E001: "Percy, ..." answered by TALIESIN three times, by no one else
    assert owner(counts({"TALIESIN": 16, "MATT": 4}, {"TALIESIN": 3}), "MATT") == "TALIESIN"
    # twice at least, and more than anyone else, the game master included
    assert owner(counts({"MATT": 15}, {"TALIESIN": 1}), "MATT") is None
    assert owner(counts({"MATT": 15}, {"TALIESIN": 2, "MATT": 2}), "MATT") is None
    # C1E001's "Adra", an NPC answered by the game master voicing her
    assert owner(counts({"MATT": 12, "LAURA": 2}, {"MATT": 2}), "MATT") is None
    # two speakers at once are no player
    assert owner(counts({"MATT": 3}, {"LAURA, SAM": 2}), "MATT") is None
    # C2E025's "Rissa", an NPC: SAM answers twice, never the game master's own words ("Rissa?
    # Sorry." from MARISHA; '"Rissa, would you mind..."', an NPC in his voice)
    rissa = {"MATT": 28, "MARISHA": 6, "SAM": 1, "TALIESIN": 1}
    calls = {("MARISHA", "SAM"): 1, ("MATT", "TALIESIN"): 1}
    assert owner(counts(rissa, {"SAM": 2, "TALIESIN": 1}, calls=calls), "MATT") is None
    calls[("MATT", "SAM")] = 1  # "Rissa, what do you do?" from the game master
    assert owner(counts(rissa, {"SAM": 2, "TALIESIN": 1}, calls=calls), "MATT") == "SAM"


def test_rule_2_a_player_s_own_words() -> None:
    # C1E001's "Scanlan Shorthalt" as its speakers say it: SAM says it most, more than the
    # game master, and answers it more often than any other player (here the game master
    # answers it as often, so rule 1 says nothing)
    scanlan = counts(
        {"SAM": 15, "MATT": 6, "ORION": 5, "TRAVIS": 4, "LIAM": 3, "MARISHA": 1},
        {"SAM": 4, "MATT": 4, "LAURA": 2},
    )
    assert owner(scanlan, "MATT") == "SAM"
    # C1E001's "Nostoc Greyspine": LAURA says it most, but LIAM answers it as often
    nostoc = counts(
        {"LAURA": 10, "MATT": 5, "LIAM": 3, "SAM": 2}, {"MATT": 1, "LIAM": 1, "LAURA": 1}
    )
    assert owner(nostoc, "MATT") is None
    # never answered by the player: no owner (C2E035's "Thaddeus", an NPC)
    assert owner(counts({"MARISHA": 4, "MATT": 2}), "MATT") is None
    # three times at least
    assert owner(counts({"SAM": 2}, {"SAM": 1}), "MATT") is None


def test_rule_3_other_forms_of_an_owned_name() -> None:
    # C1E001: ORION answers "Tiberius"; "Tiberius Stormwind" is ORION's words only
    names = {
        "Tiberius": counts({"MATT": 14, "LAURA": 3, "ORION": 1}, {"ORION": 5, "MATT": 1}),
        "Tiberius Stormwind": counts({"ORION": 4, "MATT": 1}),
        "Vax'ildan": counts({"LIAM": 4, "MATT": 1}, {"LIAM": 2}),
        "Vax": counts({"LIAM": 4, "MATT": 3, "LAURA": 2}),
        "Vaxxon": counts({"MATT": 5}),  # said by no player: not theirs
        "Trostenwald": counts({"MATT": 6, "LIAM": 1, "SAM": 3}),  # C2E001: no owned name begins it
        # C1E001: a place word, never a character, however LAURA says it
        "Greyspine Manor": counts({"LAURA": 6, "MATT": 1}, {"LAURA": 2}),
    }
    expected = {"Tiberius", "Tiberius Stormwind", "Vax'ildan", "Vax"}
    assert party_names(names, "MATT") == expected


def test_rule_0_played_and_rule_3_a_nickname_s_longer_name() -> None:
    names = {
        # C1E001: "I'm playing Vax'ildan", then "Vax" said by anyone
        "Vax'ildan": NameCounts(said=1, mid_sentence=1, before=Counter({"playing": 1})),
        "Vax": counts({"MATT": 3, "LAURA": 2}),
        # C2E035: MARISHA's "Beau"; LIAM says "Beauregard", MARISHA answers it
        "Beau": counts({"MATT": 30, "TRAVIS": 6}, {"MARISHA": 3}),
        "Beauregard": counts({"LIAM": 4, "MATT": 2}, {"MARISHA": 1}),
        "Beaumont": counts({"LIAM": 4, "MATT": 2}),  # not answered by MARISHA: not hers
    }
    assert party_names(names, "MATT") == {"Vax'ildan", "Vax", "Beau", "Beauregard"}


SESSION = [
    ("MATT", "A half-elf named Talwyn waves you over. Percy, what do you do?"),
    ("TALIESIN", "I wave back."),
    ("MATT", "Talwyn smiles. Percy, she says, you look tired."),
    ("TALIESIN", "I am."),
    ("LAURA", "Talwyn, hello."),
    ("MATT", "Talwyn nods. Then Percy sees the gate."),
    ("SAM", "Percy, you see her, right?"),
    ("LAURA", "Thank you, Laura."),
]


def test_without_a_party_the_players_characters_and_players_are_no_npcs() -> None:
    found = classify(surveyed(SESSION), {}, {})
    assert found.npcs == {"Talwyn": "Talwyn"}


def test_with_a_party_only_the_glossary_says_who_is_in_it() -> None:
    found = classify(surveyed(SESSION), {"SAM": "Scanlan Shorthalt"}, {})
    assert found.npcs == {"Talwyn": "Talwyn", "Percy": "Percy"}

"""Note file names safe on every system, one file per note whatever the file system's
case sensitivity, and wiki links Obsidian reads."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from streamer.output.vault_names import relative_link, safe_name, unique_names, wiki_link

FORBIDDEN = set('/\\:*?"<>|#^[]') | {chr(c) for c in range(32)} | {"\x7f"}
RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


def test_names_lose_what_a_file_system_or_a_link_cannot_hold() -> None:
    assert safe_name("Pumat Sol") == "Pumat Sol"
    assert safe_name("AC/DC: the  [bard]#1") == "AC-DC- the -bard-1"
    assert safe_name(" ..Vex'ahlia. ") == "Vex'ahlia"
    assert safe_name("con") == "con_"
    assert safe_name("COM1.txt") == "COM1.txt_"
    assert safe_name("???") == "-"
    assert safe_name("...") == "unnamed"
    assert safe_name("x" * 100) == "x" * 80


def test_names_equal_but_for_case_get_a_number_in_order() -> None:
    names = {"a": "Vex", "b": "vex", "c": "V/ex", "d": "V:ex", "e": "VEX"}
    assert unique_names(["a", "b", "c", "d", "e"], names) == {
        "a": "Vex", "b": "vex (2)", "c": "V-ex", "d": "V-ex (2)", "e": "VEX (3)"
    }  # fmt: skip


@given(st.lists(st.text(max_size=90), max_size=12))
def test_unique_names_are_safe_and_distinct_without_case(texts: list[str]) -> None:
    keys = [str(i) for i in range(len(texts))]
    chosen = unique_names(keys, dict(zip(keys, texts, strict=True)))
    folded = [name.casefold() for name in chosen.values()]
    assert len(set(folded)) == len(texts)
    for key, text in zip(keys, texts, strict=True):
        name = chosen[key]
        assert name and not FORBIDDEN & set(name)
        assert name == name.strip(" ") and not name.endswith(".")
        assert name.split(".")[0].casefold() not in RESERVED
        base = safe_name(text)  # the safe name, numbered when an earlier note took it
        assert name == base or re.fullmatch(re.escape(base) + r" \([2-9][0-9]*\)", name)
        earlier = [chosen[k].casefold() for k in keys[: int(key)]]
        assert (name == base) == (base.casefold() not in earlier)


def test_links() -> None:
    assert wiki_link("npcs/Pumat Sol", "Pumat Sol") == "[[npcs/Pumat Sol|Pumat Sol]]"
    assert wiki_link("sessions/S1", "sessions/S1") == "[[sessions/S1]]"
    assert wiki_link("npcs/A-B", "A|B [x]") == "[[npcs/A-B|A B x]]"
    assert relative_link("Cure [Wounds]", "../../out/S 1.html", "record=spells:c-1") == (
        r"[Cure \[Wounds\]](../../out/S%201.html#record=spells:c-1)"
    )

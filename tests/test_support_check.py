"""The support check (``docs/normalization.md``, "The support check"): per kind and per
textual member, supported candidates accepted and unsupported ones rejected at the exact
path; catalog and glossary spellings; who acts (first person, addressed by name); a value
split across units; a unit outside the cited range; folding variants; the policy switch
and its provenance in the bundle index; the check against a brute-force reference."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamer import api
from streamer.framework.kinds.normalization_spec import NormalizationSpec
from streamer.framework.party import Party
from streamer.normalization.collapse import Ref
from streamer.normalization.names import Names
from streamer.normalization.support import CitedUnit, Support, says
from tests.bundle_support import bundle_args
from tests.normalize_support import (
    candidate,
    normalize_cli,
    records,
    rejections,
    write_candidates,
)
from tests.support import KIND_OF_LANE, Case, invoke, ref, unit, write_case

LANES = ["spells", "npcs", "npc-interactions", "combat-turns", "item-events", "scene-descriptions"]

# u1..u8: who says what. The game master is MATT; LAURA plays Vex'ahlia, MARISHA Keyleth.
TEXTS: list[tuple[str, str]] = [
    ("MATT", "The rain hammers the roof of the Slayer\u2019s Take."),
    ("LAURA", "I cast Hunter's Mark on the big one!"),
    ("MATT", "Keyleth, you cast Greater Restoration; Brenna thanks you."),
    ("MARISHA", "I'm going to cast Greater"),
    ("MARISHA", "Restoration on her. I also grab two healing potions."),
    ("SAM", "I cast Tasha's Hideous Laughter, no, counter spell! Pass Without a Trace too."),
    ("MATT", "Grog swings his maul; the ogre attacks Vex'ahlia's horse."),
    ("TRAVIS", "GROG-STRONGJAW... yells at the barkeep: 'FIRE-BALL'"),
]
IDS = [f"u{index}" for index in range(1, len(TEXTS) + 1)]
GLOSSARY = """party:
  - {player: LAURA, character: "Vex'ahlia"}
  - {player: MARISHA, character: Keyleth}
  - {player: TRAVIS, character: Grog Strongjaw}
names:
  "Vex'ahlia": [Vex]
  Grog Strongjaw: [Grog]
  Brenna: [the barkeep]
"""


def make_case(root: Path, *, support: str | None = None, **chunking: int) -> Case:
    doc_units = [
        unit(unit_id, text, speaker=speaker)
        for unit_id, (speaker, text) in zip(IDS, TEXTS, strict=True)
    ]
    pipeline: dict[str, Any] = {
        "lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in LANES],
    }
    if support is not None:
        pipeline["normalization"] = {"support": support}
    if chunking:
        pipeline["chunking"] = chunking
    return write_case(root, doc_units, {}, config={"pipeline": pipeline})


def run(
    tmp_path: Path,
    lane: str,
    items: Sequence[dict[str, Any]],
    *,
    support: str | None = None,
    glossary: bool = True,
) -> tuple[list[dict[str, Any]], list[tuple[int, str, str]]]:
    """Normalize ``items`` (records, each citing the document's one chunk) in ``lane``:
    the records published and the rejections (line, reason, path)."""
    case = make_case(tmp_path / "case", support=support)
    folder = write_candidates(
        tmp_path / "candidates", lane, case, [candidate("chunk-000001", item) for item in items]
    )
    options: dict[str, Any] = {}
    if glossary:
        path = tmp_path / "campaign.yaml"
        path.write_text(GLOSSARY, encoding="utf-8")
        options["glossary"] = path
    out = tmp_path / "out"
    api.normalize(
        api.load_config(case.config), case.source, folder, out, warn=lambda _: None, **options
    )
    found = [(item["line"], item["reason"], item["path"]) for item in rejections(out)]
    return records(out, lane), found


def refs(*ids: str) -> list[dict[str, str]]:
    return [ref(unit_id) for unit_id in ids]


# -- per kind, per textual member: supported accepted, unsupported rejected at its path ----

CASES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    # lane, supported record, the same with one member hallucinated, the rejection path
    (
        "spells",
        {"spell": "Hunter's Mark", "caster": None, "source_refs": refs("u2")},
        {"spell": "Meteor Swarm", "caster": None, "source_refs": refs("u2")},
        "$.record.spell",
    ),
    (
        "spells",
        {"spell": "Greater Restoration", "caster": "Keyleth", "source_refs": refs("u3")},
        {"spell": "Greater Restoration", "caster": "Gandalf", "source_refs": refs("u3")},
        "$.record.caster",
    ),
    (
        "npcs",
        {"name": "Brenna", "source_refs": refs("u3")},
        {"name": "Kima", "source_refs": refs("u3")},
        "$.record.name",
    ),
    (
        "npc-interactions",
        {"npc": "Brenna", "source_refs": refs("u3")},
        {"npc": "Allura", "source_refs": refs("u3")},
        "$.record.npc",
    ),
    (
        "combat-turns",
        {"combatant": "ogre", "round": 2, "source_refs": refs("u7")},
        {"combatant": "dragon", "round": 2, "source_refs": refs("u7")},
        "$.record.combatant",
    ),
    (
        "item-events",
        {"item": "healing potion", "event": "acquired", "holder": None, "source_refs": refs("u5")},
        {"item": "Sunsword", "event": "acquired", "holder": None, "source_refs": refs("u5")},
        "$.record.item",
    ),
    (
        "item-events",
        {"item": "maul", "event": "used", "holder": "Grog", "source_refs": refs("u7")},
        {"item": "maul", "event": "used", "holder": "Pike", "source_refs": refs("u7")},
        "$.record.holder",
    ),
    (
        "scene-descriptions",
        {"location": "The Slayer's Take", "source_ref": ref("u1", "u2")},
        {"location": "Emon", "source_ref": ref("u1", "u2")},
        "$.record.location",
    ),
]


@pytest.mark.parametrize(("lane", "good", "bad", "path"), CASES, ids=lambda v: str(v)[:24])
def test_a_supported_value_is_accepted_and_a_hallucinated_one_rejected_at_its_path(
    tmp_path: Path, lane: str, good: dict[str, Any], bad: dict[str, Any], path: str
) -> None:
    published, rejected = run(tmp_path, lane, [good, bad])
    assert rejected == [(3, "unsupported", path)]
    assert len(published) == 1
    member = path.removeprefix("$.record.")
    assert published[0][member] not in (None, bad[member])


def test_the_first_unsupported_member_in_the_kinds_order_is_the_path(tmp_path: Path) -> None:
    bad = {"spell": "Meteor Swarm", "caster": "Gandalf", "source_refs": refs("u2")}
    assert run(tmp_path, "spells", [bad]) == ([], [(2, "unsupported", "$.record.spell")])


def test_null_event_and_round_are_not_checked(tmp_path: Path) -> None:
    turn = {"combatant": "ogre", "round": 7, "source_refs": refs("u7")}
    published, rejected = run(tmp_path / "t", "combat-turns", [turn])
    assert (rejected, [r["round"] for r in published]) == ([], [7])
    item = {"item": "maul", "event": "transferred", "holder": None, "source_refs": refs("u7")}
    published, rejected = run(tmp_path / "i", "item-events", [item])
    assert (rejected, [r["holder"] for r in published]) == ([], [None])


def test_the_check_runs_after_the_existing_reasons(tmp_path: Path) -> None:
    hallucinated_outside = {"spell": "Meteor Swarm", "caster": None, "source_refs": refs("u99")}
    _, rejected = run(tmp_path, "spells", [hallucinated_outside])
    assert rejected == [(2, "unknown_unit", "$.record.source_refs[0].start_unit_id")]


# -- known spellings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spoken", "canonical"),
    [
        ("Tasha's Hideous Laughter", "Hideous Laughter"),
        ("counter spell", "Counterspell"),
        ("Pass Without a Trace", "Pass without Trace"),
    ],
)
def test_the_catalogs_spoken_forms_support_the_srd_name(
    tmp_path: Path, spoken: str, canonical: str
) -> None:
    cast = {"spell": spoken, "caster": None, "source_refs": refs("u6")}
    published, rejected = run(tmp_path, "spells", [cast])
    assert rejected == []
    assert [r["spell"] for r in published] == [canonical]


def test_a_catalog_run_supports_a_spell_spoken_with_other_spacing(tmp_path: Path) -> None:
    cast = {"spell": "Fireball", "caster": None, "source_refs": refs("u8")}  # says FIRE-BALL
    assert run(tmp_path, "spells", [cast])[1] == []
    fog = {"spell": "Fog Cloud", "caster": None, "source_refs": refs("u1")}  # "a fog": no
    assert run(tmp_path / "fog", "spells", [fog])[1] == [(2, "unsupported", "$.record.spell")]


def test_glossary_names_and_aliases_support_the_canonical_name(tmp_path: Path) -> None:
    items = [
        {"name": "the barkeep", "source_refs": refs("u8")},  # an alias, said
        {"name": "Brenna", "source_refs": refs("u8")},  # the name, said through its alias
        {"name": "Vex", "source_refs": refs("u7")},  # an alias of a name said (Vex'ahlia's)
    ]
    published, rejected = run(tmp_path, "npcs", items)
    assert rejected == []
    assert sorted(r["name"] for r in published) == ["Brenna", "Vex'ahlia"]
    published, rejected = run(tmp_path / "bare", "npcs", items[1:2], glossary=False)
    assert (published, rejected) == ([], [(2, "unsupported", "$.record.name")])


# -- who acts ---------------------------------------------------------------------------------


def test_first_person_by_the_speaker_supports_the_caster_through_the_party(
    tmp_path: Path,
) -> None:
    items = [
        {"spell": "Hunter's Mark", "caster": "Vex'ahlia", "source_refs": refs("u2")},  # LAURA: I
        {"spell": "Hunter's Mark", "caster": "Vex", "source_refs": refs("u2")},  # alias, same
        {"spell": "Hunter's Mark", "caster": "LAURA", "source_refs": refs("u2")},  # the label
        {"spell": "Hunter's Mark", "caster": "Keyleth", "source_refs": refs("u2")},  # not her
    ]
    published, rejected = run(tmp_path, "spells", items)
    assert rejected == [(5, "unsupported", "$.record.caster")]
    assert sorted(r["caster"] for r in published) == ["LAURA", "Vex'ahlia"]
    published, rejected = run(tmp_path / "bare", "spells", items[:1], glossary=False)
    assert rejected == [(2, "unsupported", "$.record.caster")]  # no party: not her speaker


def test_the_speaker_without_the_first_person_is_not_enough(tmp_path: Path) -> None:
    # MATT speaks u1 without a first-person word; MARISHA's u4 ("I'm going to cast") has one
    matt = {"combatant": "MATT", "round": None, "source_refs": refs("u1")}
    keyleth = {"combatant": "Keyleth", "round": None, "source_refs": refs("u4")}
    published, rejected = run(tmp_path, "combat-turns", [matt, keyleth])
    assert rejected == [(2, "unsupported", "$.record.combatant")]
    assert [r["combatant"] for r in published] == ["Keyleth"]


def test_a_character_addressed_by_name_is_supported(tmp_path: Path) -> None:
    cast = {"spell": "Greater Restoration", "caster": "Keyleth", "source_refs": refs("u3")}
    turn = {"combatant": "keyleth", "round": 1, "source_refs": refs("u3")}  # MATT speaks u3
    assert run(tmp_path / "s", "spells", [cast])[1] == []
    assert run(tmp_path / "t", "combat-turns", [turn])[1] == []


def test_a_holder_in_the_first_person(tmp_path: Path) -> None:
    item = {"item": "healing potions", "event": "acquired", "holder": "Keyleth"}
    published, rejected = run(tmp_path, "item-events", [{**item, "source_refs": refs("u5")}])
    assert (rejected, [r["holder"] for r in published]) == ([], ["Keyleth"])


# -- which text -------------------------------------------------------------------------------


def test_a_value_split_across_two_units_of_one_reference_is_supported(tmp_path: Path) -> None:
    one_range = {"spell": "Greater Restoration", "caster": None, "source_refs": [ref("u4", "u5")]}
    two_refs = {"spell": "Greater Restoration", "caster": None, "source_refs": refs("u4", "u5")}
    published, rejected = run(tmp_path, "spells", [one_range, two_refs])
    assert rejected == [(3, "unsupported", "$.record.spell")]  # each reference alone: no
    assert [r["source_refs"] for r in published] == [[ref("u4", "u5")]]


def test_a_value_only_in_a_unit_outside_the_cited_range_is_rejected(tmp_path: Path) -> None:
    items = [
        {"spell": "Hunter's Mark", "caster": None, "source_refs": refs("u1")},  # said in u2
        {"spell": "Hunter's Mark", "caster": None, "source_refs": refs("u3")},
        {"spell": "Hunter's Mark", "caster": None, "source_refs": [ref("u1", "u2")]},
    ]
    published, rejected = run(tmp_path, "spells", items)
    assert rejected == [(2, "unsupported", "$.record.spell"), (3, "unsupported", "$.record.spell")]
    assert [r["source_refs"] for r in published] == [[ref("u1", "u2")]]


def test_any_one_of_the_references_may_say_it(tmp_path: Path) -> None:
    cast = {"spell": "Hunter's Mark", "caster": None, "source_refs": refs("u1", "u2", "u3")}
    assert run(tmp_path, "spells", [cast])[1] == []


@pytest.mark.parametrize(
    "value",
    [
        "SLAYER'S TAKE",  # case, and the text's U+2019 apostrophe
        "slayer\u2019s take",
        "Slayer`s Take",  # a grave accent is an apostrophe form
        "the slayer's take.",  # punctuation at the edge, a leading article
        "  Slayer's   Take ",
        "Slayers Take",  # no: Slayers is not slayer's
    ],
)
def test_case_apostrophe_and_punctuation_variants(tmp_path: Path, value: str) -> None:
    scene = {"location": value, "source_ref": ref("u1")}
    rejected = run(tmp_path, "scene-descriptions", [scene])[1]
    assert rejected == (
        [(2, "unsupported", "$.record.location")] if value == "Slayers Take" else []
    )


def test_inflection_tolerance_is_one_ending(tmp_path: Path) -> None:
    items = [
        {"item": "healing potion", "event": "acquired", "holder": None},  # potions
        {"item": "a healing potion", "event": "acquired", "holder": None},  # article
        {"item": "healing potionsss", "event": "acquired", "holder": None},  # two endings
        {"item": "heal potion", "event": "acquired", "holder": None},  # not an ending
    ]
    cited = [{**item, "source_refs": refs("u5")} for item in items]
    rejected = run(tmp_path, "item-events", cited)[1]
    assert rejected == [(4, "unsupported", "$.record.item"), (5, "unsupported", "$.record.item")]


# -- scenes: checked over the whole scene ----------------------------------------------------


def test_a_scene_is_supported_when_one_of_its_fragments_says_it(tmp_path: Path) -> None:
    # chunks of 3 overlapping by 1: u1-u3, u3-u5, u5-u7, ...; the location is said in u1
    case = make_case(tmp_path / "case", max_units=3, overlap_units=1)
    scenes = [
        candidate("chunk-000001", {"location": "Slayer's Take", "source_ref": ref("u1", "u3")}),
        candidate("chunk-000002", {"location": "Slayer's Take", "source_ref": ref("u3", "u4")}),
        candidate("chunk-000003", {"location": "Slayer's Take", "source_ref": ref("u6", "u7")}),
        candidate("chunk-000003", {"location": "Emon", "source_ref": ref("u5", "u7")}),
    ]
    folder = write_candidates(tmp_path / "candidates", "scene-descriptions", case, scenes)
    out = tmp_path / "out"
    config = api.load_config(case.config)
    result = api.normalize(config, case.source, folder, out, warn=lambda _: None)
    found = [(r["location"], r["source_ref"]) for r in records(out, "scene-descriptions")]
    assert found == [("Slayer's Take", ref("u1", "u4"))]  # the cut-off fragment kept
    assert [(r["line"], r["chunk_id"], r["reason"]) for r in rejections(out)] == [
        (4, "chunk-000003", "unsupported"),
        (5, "chunk-000003", "unsupported"),
    ]
    (lane,) = [item for item in result.lanes if item.lane_id == "scene-descriptions"]
    assert lane.receipt()["accepted"] == 2


# -- the policy switch -----------------------------------------------------------------------

SPELLS: list[dict[str, Any]] = [
    {"spell": "Meteor Swarm", "caster": "Gandalf", "source_refs": refs("u2")},
    {"spell": "Hunter's Mark", "caster": None, "source_refs": refs("u2")},
]


def test_support_off_accepts_the_same_candidates_and_the_bundle_index_says_so(
    tmp_path: Path,
) -> None:
    for support in ("strict", "off"):
        case = make_case(tmp_path / support, support=support)
        folder = write_candidates(
            tmp_path / support / "candidates",
            "spells",
            case,
            [candidate("chunk-000001", item) for item in SPELLS],
        )
        lanes = case.lanes_dir  # write_case made it empty: --force replaces it
        normalized = normalize_cli(case, folder, lanes, "--force")
        assert normalized.status == 0, normalized.stderr
        receipt = orjson.loads(normalized.stdout)
        spells = next(lane for lane in receipt["lanes"] if lane["lane_id"] == "spells")
        bundle = tmp_path / support / "bundle"
        made = invoke(bundle_args(case, bundle, "--lane", "spells"))
        assert made.status == 0, made.stderr
        assert invoke(["validate", str(bundle)]).status == 0
        index = orjson.loads((bundle / "index.json").read_bytes())
        (descriptor,) = index["lanes"]
        if support == "strict":
            assert (spells["accepted"], spells["rejected"]) == (1, {"unsupported": 1})
            assert "normalization" not in descriptor
            assert not (lanes / "normalization.json").exists()
            assert "rejected, unsupported at $.record.spell" in normalized.stderr
        else:
            assert (spells["accepted"], spells["rejected"]) == (2, {})
            assert descriptor["normalization"] == {"support": "off"}
            assert (lanes / "normalization.json").read_bytes() == b'{"support":"off"}\n'
            assert receipt["files"] == ["normalization.json", "rejections.jsonl", "spells.json"]
        published = orjson.loads((bundle / "lanes" / "spells.json").read_bytes())
        assert sorted(published) == ["artifact_kind", "lane_id", "records", "schema", "source"]
        assert len(published["records"]) == (1 if support == "strict" else 2)


def test_a_bad_policy_is_a_configuration_error(tmp_path: Path) -> None:
    case = make_case(tmp_path / "case", support="lenient")
    run_ = invoke(["chunk", "--config", str(case.config), "--source", str(case.source)])
    assert run_.status == 2
    assert run_.stderr == (
        "streamer: error: $.pipeline.normalization.support must be one of: strict, off "
        "(hint: strict rejects a candidate its cited units do not support; off accepts it)\n"
    )


def test_a_forged_provenance_file_fails_the_bundle(tmp_path: Path) -> None:
    case = make_case(tmp_path / "case")
    (case.lanes_dir / "normalization.json").write_text('{"support":"lenient"}')
    made = invoke(bundle_args(case, tmp_path / "bundle"))
    assert made.status == 3
    assert "normalization.json in --lanes-dir is not what streamer normalize writes" in made.stderr
    assert not (tmp_path / "bundle").exists()


# -- against a brute-force reference ---------------------------------------------------------

APOSTROPHES = "'\u2019\u2018\u02bc`\u00b4"


def reference_words(text: str) -> list[str]:
    """Independently: fold, then walk the characters."""
    text = unicodedata.normalize("NFKC", text).casefold()
    for mark in APOSTROPHES:
        text = text.replace(mark, "'")
    out: list[str] = []
    word = ""
    for index, char in enumerate(text):
        inner = char == "'" and word != "" and index + 1 < len(text) and text[index + 1].isalnum()
        if char.isalnum() or inner:
            word += char
        else:
            if word:
                out.append(word)
            word = ""
    if word:
        out.append(word)
    return out


def reference_match(text_word: str, value_word: str) -> bool:
    forms = {value_word + ending for ending in ("", "s", "es", "'s")}
    back = {text_word + ending for ending in ("s", "es", "'s")}
    return text_word in forms or value_word in back


def reference_says(text: list[str], value: list[str]) -> bool:
    if len(value) > 1 and value[0] in {"a", "an", "the"}:
        value = value[1:]
    if not value:
        return False
    windows = [text[i : i + len(value)] for i in range(len(text) - len(value) + 1)]
    return any(all(map(reference_match, window, value)) for window in windows)


# words and their forms: an ending alone, one ending on another, an empty word
WORDS = ["s", "es", "'s", "fire", "fires", "firees", "fire's", "fire'ses", "ball", "balls", "", "e"]


@given(st.lists(st.sampled_from(WORDS), max_size=8), st.lists(st.sampled_from(WORDS), max_size=3))
def test_says_agrees_with_the_word_by_word_reference(text: list[str], phrase: list[str]) -> None:
    """``says`` looks the text's words up among the forms of the phrase's words: the
    phrase occurs where each of its words matches, by ``reference_match``."""
    windows = [text[i : i + len(phrase)] for i in range(len(text) - len(phrase) + 1)]
    expected = bool(phrase) and any(all(map(reference_match, w, phrase)) for w in windows)
    assert says(text, phrase) is expected


VOCABULARY = ["fire", "ball", "fog", "cloud", "the", "a", "vex'ahlia", "s", "es", "fires"]
SEPARATORS = [" ", "  ", "-", ", ", "! ", "\n", "'", "\u2019", "' ", " (", ") ", "\u00ad"]


@st.composite
def spoken(draw: Any, most: int) -> str:
    parts = draw(st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=most))
    out = ""
    for part in parts:
        word = draw(st.sampled_from([part, part.upper(), part.title(), part + "s"]))
        out += word + draw(st.sampled_from(SEPARATORS))
    return out


@given(st.lists(spoken(6), min_size=1, max_size=3), spoken(3))
def test_the_check_agrees_with_a_brute_force_reference(texts: list[str], value: str) -> None:
    units = [CitedUnit(text, None) for text in texts]
    ids = [f"u{position}" for position in range(len(texts))]
    spec = NormalizationSpec(id_prefix="scene", textual_members=("location",))
    support = Support(spec, Names(), Party())
    whole = Ref(0, len(texts) - 1, ids[0], ids[-1])
    alone = [Ref(p, p, unit_id, unit_id) for p, unit_id in enumerate(ids)]
    for ref_ in [whole, *alone]:
        support.expect({"location": value}, [(ref_.start_unit_id, ref_.end_unit_id)])
        support.read((ref_.start_unit_id, ref_.end_unit_id), units[ref_.start : ref_.end + 1])
    words = [word for text in texts for word in reference_words(text)]
    expected = reference_says(words, reference_words(value))
    assert (support.unsupported({"location": value}, [whole]) is None) == expected
    # any one reference may say it: each unit alone
    expected_alone = any(reference_says(reference_words(t), reference_words(value)) for t in texts)
    assert (support.unsupported({"location": value}, alone) is None) == expected_alone


def test_the_shuffled_candidates_give_the_same_bytes(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [*SPELLS]
    for _, good, bad, _ in CASES[:2]:
        items += [good, bad]
    outputs = []
    for attempt in range(3):
        shuffled = list(items)
        random.Random(attempt).shuffle(shuffled)
        root = tmp_path / str(attempt)
        run(root, "spells", shuffled)
        outputs.append((root / "out" / "spells.json").read_bytes())
        assert orjson.loads(outputs[-1])["records"]  # some accepted, some rejected
    assert outputs[0] == outputs[1] == outputs[2]


class _Zaps:
    """A catalog that knows one spelling and says nothing of how it is spoken."""

    def canonical(self, value: str) -> str:
        return "Lightning Bolt" if value.casefold() == "the big zap thing" else value


def test_the_value_as_a_candidate_gave_it_is_a_spelling_of_its_canonical_value() -> None:
    spec = NormalizationSpec(
        id_prefix="spell", catalogs={"spell": _Zaps()}, textual_members=("spell",)
    )
    support = Support(spec, Names(), Party())
    claim = {"spell": "Lightning Bolt"}
    support.expect(claim, [("u1", "u1")], {"spell": "The Big Zap Thing"})
    support.expect(claim, [("u2", "u2")], {"spell": "Lightning Bolt"})
    support.read(("u1", "u1"), [CitedUnit("I unleash the big zap thing!", None)])
    support.read(("u2", "u2"), [CitedUnit("Zap!", None)])
    assert support.unsupported(claim, [Ref(0, 0, "u1", "u1")]) is None
    assert support.unsupported(claim, [Ref(1, 1, "u2", "u2")]) == "spell"

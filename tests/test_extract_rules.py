"""``engine: rules``: the built-in spell-cast extractor, on sentences, on the committed
fixtures and on the four CRD3 episodes of ``../shared/data/crd3`` (skipped when absent)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from streamer import api
from streamer.configuration import Configuration
from streamer.domain.dnd.rules import ORDINARY_SPELLS, SpellCastRules, SpellRules, casts
from streamer.domain.dnd.spell_catalog import match_key, srd_spells
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit
from tests.extract_support import SESSION, candidates, run_cli_env
from tests.support import CRD3, REPO

SENTENCES = [
    ("I cast Thunderwave at the last two!", [("Thunderwave", True)]),
    ("I'm going to cast Blur.", [("Blur", True)]),
    ("I\u2019m gonna cast Hunter\u2019s Mark on the most damaged one.", [("Hunter's Mark", True)]),
    ("I'll just cast stoneskin on myself.", [("Stoneskin", True)]),
    ("I cast a third-level fire ball at them", [("Fireball", True)]),
    ("I cast counter spell", [("Counterspell", True)]),
    ("Casting Tasha's Hideous Laughter on him.", [("Hideous Laughter", False)]),
    ("She casts Cure Wounds on Grog.", [("Cure Wounds", False)]),
    ("You go ahead and you cast unseen servant.", [("Unseen Servant", False)]),
    ("I cast light on my sword, then I cast shield", [("Light", True), ("Shield", True)]),
    ("I will cast the Blur spell on myself again", [("Blur", True)]),
    # Not a cast: a question, a negation, a condition, the noun, no known spell.
    ("May I cast Detect Magic?", []),
    ("Can I put my hand on his head and cast Cure Wounds?", []),
    ("I won't cast Fireball in here.", []),
    ("If you cast Shield, you take no damage.", []),
    ("A signed photo of the cast of Critical Role.", []),
    ("I cast a spell.", []),
    ("The forecast says rain; I broadcast Fireball to everyone.", []),
    # v2: small words, the wizard's name, names as verbs, attempts
    ("I cast Pass Without a Trace on us", [("Pass without Trace", True)]),
    ("I cast a Fog Cloud over the door", [("Fog Cloud", True)]),
    ("I cast Leomund\u2019s Tiny Hut.", [("Tiny Hut", True)]),
    ("I'll cast Mordenkainen's Magnificent Mansion", [("Magnificent Mansion", True)]),
    ("Yes, I'll Greater Restoration on Grog.", [("Greater Restoration", True)]),
    ("I Plane Shift it.", [("Plane Shift", True)]),
    ("I'll Dimension Door into the house.", [("Dimension Door", True)]),
    ("I'm going to just Misty Step behind him", [("Misty Step", True)]),
    ("Okay, Hunter's Mark on the big one.", [("Hunter's Mark", False)]),
    ("So I Tasha's Hideous Laughter the guard", [("Hideous Laughter", True)]),
    ("I tried to cast Sending, but my hands are bound.", []),
    ("I try to cast Fireball.", []),
    ("I was going to cast Bless.", []),
    ("He fails to cast Counterspell.", []),
    ("She attempts to cast Hold Person.", []),
    ("I'm glad I cast Stoneskin.", []),
    # a name as a verb: not in a question, not after a modal, not an ordinary word
    ("Can I Dimension Door out of here?", []),
    ("I could Misty Step away.", []),
    ("I Shield.", []),
    ("I'll Haste him.", []),
    ("Sleep on it.", []),
    ("The Hunter's Mark is still up.", []),
    ("Dimension Door is a fourth-level spell.", []),
]


# v3: the other verbs, a name said alone, a question the game master allows, a refusal
SENTENCES += [
    ("I'll just throw a healing word to him.", [("Healing Word", True)]),
    (
        "I'm going to use Devil's Tongue, I'm going to use Vicious Mockery.",
        [("Vicious Mockery", True)],
    ),
    ("I send a Fire Bolt at it.", [("Fire Bolt", True)]),
    ("As soon as I see it, I'm going to release Chromatic Orb.", [("Chromatic Orb", True)]),
    ("Okay! I'll do a Scorching Ray.", [("Scorching Ray", True)]),
    ("...and send out Dancing Lights.", [("Dancing Lights", False)]),
    ("All right, so you throw Hunter's Mark on this one.", [("Hunter's Mark", False)]),
    ("Bam, call lightning right on its head.", [("Call Lightning", False)]),
    # not a cast: a spell already up, damage, a hedge, an ordinary word without "cast"
    ("I'm going to send my spiritual weapon down there.", []),
    ("I switched over my Hunter's Mark.", []),
    ("I didn't do my Hunter's Mark damage.", []),
    ("Then I'll do Hunter's Mark damage.", []),
    ("I guess I'll do Healing Word to cure you.", []),
    ("Maybe I'll cast Fireball.", []),
    ("I use Shield.", []),
    ("I'll throw a light on it.", []),
    ("I'm going to use it. Fireball is great.", []),
    # the game master refuses in the same unit
    ("I cast stoneskin on myself. You don't have that much time, unfortunately.", []),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_casting_statements(text: str, expected: list[tuple[str, bool]]) -> None:
    rules = SpellRules.of(RulesContext())
    assert casts(text, rules, "ME") == [(spell, "ME" if me else None) for spell, me in expected]


def test_ordinary_spells_need_a_casting_verb() -> None:
    """The explicit list: each is a catalog name (or alias), never read as a verb alone,
    and still read after a casting verb."""
    catalog = srd_spells()
    rules = SpellRules.of(RulesContext())
    assert {"Light", "Shield", "Command", "Sleep", "Fly", "Wish", "Haste"} <= ORDINARY_SPELLS
    for name in sorted(ORDINARY_SPELLS):
        assert catalog.canonical(name) in catalog.names, name
        assert casts(f"I {name} on him.", rules, "ME") == [], name
        assert casts(f"I'll use {name} on him.", rules, "ME") == [], name
        assert casts(f"I throw a {name} at him.", rules, "ME") == [], name
        assert casts(f"I cast {name} on him.", rules, "ME") == [(catalog.canonical(name), "ME")], (
            name
        )


BARE = [  # a player's unit that is a spell's name alone: a cast, the caster not said
    ("Oh yes, Hunter's Mark.", ["Hunter's Mark"]),
    ("Firebolt.", ["Fire Bolt"]),
    ("Dispel magic.", ["Dispel Magic"]),
    ("Druidcraft!", ["Druidcraft"]),
    ("Fireball?", []),
    ("Light!", []),  # an ordinary word
    ("Fireball, maybe.", []),
    ("Healing Word, Cure Wounds.", []),
    ("Hunter's Mark is up.", []),
]


@pytest.mark.parametrize(("text", "spells"), BARE)
def test_a_spells_name_said_alone(text: str, spells: list[str]) -> None:
    rules = SpellRules.of(RulesContext())
    assert casts(text, rules, "ME") == [(spell, None) for spell in spells]
    assert casts(text, rules, None) == []  # not a party player's: nothing


def test_every_name_said_alone_is_read_and_no_ordinary_one() -> None:
    """Against the catalog itself: each name (and its words run together) said alone by a
    player gives that spell, unless it is an ordinary word."""
    catalog = srd_spells()
    rules = SpellRules.of(RulesContext())
    for name in catalog.names:
        expected = [] if name in ORDINARY_SPELLS else [(name, None)]
        assert casts(f"{name}.", rules, "ME") == expected, name
        joined = "".join(name.split())
        if " " in name and "'" not in name:
            assert casts(f"Oh, {joined}!", rules, "ME") == expected, name


ASKED = [  # (question, the game master's reply, cast)
    ("Can I fire Eldritch Blast in the direction that I saw it?", "You can.", "Eldritch Blast"),
    ("May I cast Detect Magic?", "You may. You lean back...", "Detect Magic"),
    (
        "Can I put my hand on his head and cast Cure Wounds?",
        "Okay. Go ahead and roll.",
        "Cure Wounds",
    ),
    ("Can I cast Fireball?", "Yes, you can.", "Fireball"),
    ("Can I cast Fireball?", "Sure.", "Fireball"),
    ("Can I cast Fireball?", "You can, but not here.", None),
    ("Can I cast Fireball?", "You can't, you're a bear.", None),
    ("Can I cast Fireball?", "You can certainly try.", None),
    ("Can I cast Fireball?", "Okay.", None),
    ("Can I cast Fireball?", "No.", None),
    ("Should I cast Fireball?", "Yes.", None),  # advice, not leave
    ("Can you cast Fireball?", "Yes.", None),
    ("Can I dash and then cast Fireball?", "Yes.", "Fireball"),
    ("Can I Dimension Door out of here?", "You can.", None),  # a name as a verb: never asked
]


@pytest.mark.parametrize(("question", "reply", "spell"), ASKED)
def test_a_question_the_game_master_allows(question: str, reply: str, spell: str | None) -> None:
    rules = SpellRules.of(RulesContext())
    assert casts(question, rules, "ME", reply) == ([] if spell is None else [(spell, "ME")])
    assert casts(question, rules, "ME") == []  # no reply: a question stays a question


def test_a_reply_refusing_a_cast() -> None:
    rules = SpellRules.of(RulesContext())
    text = "As a bonus action, I'll cast Mage Hand and dig around."
    assert casts(text, rules, "ME", "Well, Mage Hand is an action, so you can't hold--") == []
    assert casts(text, rules, "ME", "You do not have the slots.") == []
    assert casts(text, rules, "ME", "Okay. You can't see it yet.") == [("Mage Hand", "ME")]
    assert casts(text, rules, "ME", "Okay.") == [("Mage Hand", "ME")]


def test_the_reply_is_the_next_unit_by_another_speaker_in_the_chunk() -> None:
    question = "Can I cast Fireball?"
    context = RulesContext({"SAM": "Scanlan Shorthalt"})
    rules = SpellCastRules()
    asked = [ShownUnit("u1", "SAM", question), ShownUnit("u2", "MATT", "You can.")]
    same = [ShownUnit("u1", "SAM", question), ShownUnit("u2", "sam ", "You can.")]
    unknown = [ShownUnit("u1", "SAM", question), ShownUnit("u2", None, "You can.")]
    assert rules(asked, context) == [
        {"spell": "Fireball", "caster": "Scanlan Shorthalt", "source_refs": [ref("u1")]}
    ]
    assert rules(same, context) == rules(unknown, context) == rules(asked[:1], context) == []
    for units in (asked, same, unknown):
        assert SpellCastRules(prefilter=False)(units, context) == rules(units, context)


def test_the_game_master_narrating_a_cast_names_the_caster() -> None:
    party = {"SAM": "Scanlan Shorthalt", "MARISHA": "Keyleth", "LAURA": "Vex'ahlia"}
    names = {"vex": "Vex'ahlia", "vex'ahlia": "Vex'ahlia", "scanlan": "Scanlan Shorthalt"}
    rules = SpellRules.of(RulesContext(party, names))
    assert casts("Keyleth, you cast Fog Cloud.", rules) == [("Fog Cloud", "Keyleth")]
    assert casts("Scanlan casts Thunderwave.", rules) == [("Thunderwave", "Scanlan Shorthalt")]
    assert casts("All right, Vex, so you cast Hunter's Mark.", rules) == [
        ("Hunter's Mark", "Vex'ahlia")
    ]
    assert casts("The mage casts Fireball.", rules) == [("Fireball", None)]
    assert casts("You cast Fireball.", rules) == [("Fireball", None)]
    assert casts("Grog, he casts Fireball.", rules) == [("Fireball", None)]
    assert casts("Shorthalt casts Fireball.", rules) == [("Fireball", None)]  # not a name of his


def test_glossary_spell_aliases_are_read_after_a_casting_verb() -> None:
    context = RulesContext(aliases={"spells": {"hut": "Tiny Hut", "the dome": "Tiny Hut"}})
    rules = SpellRules.of(context)
    assert casts("I cast the dome.", rules, "ME") == [("Tiny Hut", "ME")]
    assert casts("I cast hut", rules, "ME") == [("Tiny Hut", "ME")]
    assert casts("I hut on us", rules, "ME") == []  # glossary aliases need the verb


def test_every_matched_spell_is_a_catalog_name() -> None:
    names = set(srd_spells().names)
    for text, expected in SENTENCES:
        assert {spell for spell, _ in expected} <= names, text


def test_the_caster_is_the_speakers_character_only_in_the_first_person() -> None:
    units = [
        ShownUnit("u1", "SAM", "I cast Thunderwave!"),
        ShownUnit("u2", "MATT", "Scanlan casts Thunderwave."),
        ShownUnit("u3", "LIAM", "I cast Blur."),  # not in the party
        ShownUnit("u4", None, "I cast Blur."),
    ]
    records = SpellCastRules()(units, RulesContext({"SAM": "Scanlan Shorthalt"}))
    assert (
        SpellCastRules(prefilter=False)(units, RulesContext({"SAM": "Scanlan Shorthalt"}))
        == records
    )
    assert records == [
        {"spell": "Thunderwave", "caster": "Scanlan Shorthalt", "source_refs": [ref("u1")]},
        {"spell": "Thunderwave", "caster": None, "source_refs": [ref("u2")]},
        {"spell": "Blur", "caster": None, "source_refs": [ref("u3")]},
        {"spell": "Blur", "caster": None, "source_refs": [ref("u4")]},
    ]


def ref(unit_id: str) -> dict[str, str]:
    return {"start_unit_id": unit_id, "end_unit_id": unit_id}


def rules_config(root: Path, *, max_units: int = 10, overlap_units: int = 2) -> Path:
    config = {
        "pipeline": {
            "lanes": [
                {"id": "spells", "artifact_kind": "dnd/spell-casts"},
                {"id": "roster", "artifact_kind": "dnd/party-roster"},
            ],
            "chunking": {"max_units": max_units, "overlap_units": overlap_units},
            "extraction": {"engine": "rules"},
        }
    }
    path = root / "streamer.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_the_demo_session(tmp_path: Path) -> None:
    config = api.load_config(rules_config(tmp_path))
    result = api.extract(config, SESSION, tmp_path / "out", party={"SAM": "Scanlan"})
    assert candidates(tmp_path / "out" / "spells.jsonl") == [
        {
            "lane_id": "spells",
            "artifact_kind": "dnd/spell-casts",
            "source": {
                "document_id": "demo-slayers-take",
                "semantic_digest": "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6",
            },
            "extractor": {"engine": "rules", "prompt": "dnd/spell-casts-rules@7"},
        },
        {
            "chunk_id": "chunk-000002",
            "record": {"spell": "Thunderwave", "caster": "Scanlan", "source_refs": [ref("t0116")]},
        },
        {  # t0116 is in the overlap of chunks 2 and 3: normalization makes them one record
            "chunk_id": "chunk-000003",
            "record": {"spell": "Thunderwave", "caster": "Scanlan", "source_refs": [ref("t0116")]},
        },
    ]
    (lane,) = result.lanes
    assert (lane["chunks"], lane["candidates"], lane["requests"], lane["cache_hits"]) == (
        3,
        2,
        0,
        0,
    )
    assert result.skipped == ("roster",)
    assert not list((tmp_path / "out" / ".cache").iterdir())


def test_the_imported_text_fixture_through_the_command_line(tmp_path: Path) -> None:
    source = tmp_path / "bridge.jsonl"
    api.import_transcript("text", REPO / "fixtures" / "import" / "bridge.txt", output=source)
    config = rules_config(tmp_path, max_units=4, overlap_units=1)
    args = ["extract", "--config", str(config), "--source", str(source)]
    first = run_cli_env([*args, "--output-dir", str(tmp_path / "a")])
    second = run_cli_env([*args, "--output-dir", str(tmp_path / "b"), "--no-cache"])
    assert (first.status, first.stderr, second.status) == (0, "", 0)
    lines = candidates(tmp_path / "a" / "spells.jsonl")
    assert [line["record"]["spell"] for line in lines[1:]] == ["Feather Fall"]
    assert lines[1]["record"]["caster"] is None
    assert (tmp_path / "a" / "spells.jsonl").read_bytes() == (
        tmp_path / "b" / "spells.jsonl"
    ).read_bytes()
    assert json.loads(first.stdout)["lanes"][0]["candidates"] == 1


# -- CRD3 --------------------------------------------------------------------------------------

EPISODES = {  # candidates (lines, overlap duplicates included), distinct (unit, spell) pairs
    # v3 over v2: names said alone, the other verbs (use, throw, send, fire, release, do),
    # questions the game master allows; minus two casts refused (t01455 of C1E002, t01621
    # of C2E010). Each added pair outside the labelled ranges was read: all casts.
    # v4 over v3: spells the catalog lacks after a casting verb (C1E001 t00789 Glacial
    # Blast, C1E002 t01838 Grand Column, C2E001 t01298 Toll the Dead, C2E010 t00575 Armor
    # of Agathys), the narration "Stoneskin is placed on you" (C1E001 t01395), "I want to
    # detect magic" (C1E002 t01083); minus two repeats of a cast 12 and 17 units after
    # its declaration (C1E002 t00528 "Dispel magic.", t00574 "you cast unseen servant").
    # v6 over v5: "throw a little Fireball" (C1E001 t01555), "Wall of Stone-- boom."
    # (C1E001 t01817), "Oh, light! (snaps)" and "Light!" / "All right." (C1E002 t01170,
    # t01424), "shoot a firebolt at" (C1E002 t02805), "I would like to ... cast Hex" (C2E001
    # t01353), "fire all three of the Scorching Ray balls" asked and allowed (C2E010 t01530),
    # "giving Identify a whirl" (C2E010 t02213).
    "C1E001": (18, 18),
    "C1E002": (30, 26),
    "C2E001": (11, 10),
    "C2E010": (23, 21),
}
# the spells outside the SRD the episodes' casts name after a casting verb (v4)
OUTSIDE_THE_SRD = {"Glacial Blast", "Grand Column", "Toll the Dead", "Armor of Agathys"}
PARTIES = {
    "C1": {
        "LAURA": "Vex'ahlia",
        "LIAM": "Vax'ildan",
        "MARISHA": "Keyleth",
        "SAM": "Scanlan Shorthalt",
        "TALIESIN": "Percival",
        "TRAVIS": "Grog Strongjaw",
        "ORION": "Tiberius Stormwind",
        "ASHLEY": "Pike Trickfoot",
    },
    "C2": {
        "LAURA": "Jester Lavorre",
        "LIAM": "Caleb Widogast",
        "MARISHA": "Beauregard",
        "SAM": "Nott",
        "TALIESIN": "Mollymauk Tealeaf",
        "TRAVIS": "Fjord",
        "ASHLEY": "Yasha",
    },
}


def units_of(source: Path) -> dict[str, dict[str, Any]]:
    return {
        item["unit_id"]: item
        for item in (json.loads(line) for line in source.read_text().splitlines()[1:])
    }


@pytest.mark.parametrize("episode", sorted(EPISODES))
def test_the_crd3_episodes(tmp_path: Path, episode: str) -> None:
    path = CRD3 / "episodes" / f"{episode}.json"
    if not path.exists():
        pytest.skip(f"the CRD3 sample ({CRD3}) is absent")
    source = tmp_path / f"{episode}.jsonl"
    api.import_transcript("crd3", path, output=source)
    config = api.load_config(rules_config(tmp_path, max_units=100, overlap_units=10))
    party = PARTIES[episode[:2]]
    result = api.extract(config, source, tmp_path / "out", party=party)
    lines = candidates(tmp_path / "out" / "spells.jsonl")[1:]
    distinct = {
        (line["record"]["source_refs"][0]["start_unit_id"], line["record"]["spell"])
        for line in lines
    }
    assert (len(lines), len(distinct)) == EPISODES[episode]
    assert result.lanes[0]["candidates"] == len(lines)
    units = units_of(source)
    order = list(units)
    chunks = {}
    for chunk in json.loads("[" + ",".join(_chunks(config, source)) + "]"):
        chunks[chunk["chunk_id"]] = {unit["unit_id"] for unit in chunk["units"]}
    names = set(srd_spells().names)
    for line in lines:
        record = line["record"]
        (reference,) = record["source_refs"]
        unit_id = reference["start_unit_id"]
        assert reference["end_unit_id"] == unit_id and unit_id in chunks[line["chunk_id"]]
        assert record["spell"] in names or record["spell"] in OUTSIDE_THE_SRD
        unit = units[unit_id]
        assert match_key(record["spell"]) in match_key(unit["text"])  # "Firebolt." too
        assert record["caster"] in (None, *party.values())
    keys = [
        (line["chunk_id"], order.index(line["record"]["source_refs"][0]["start_unit_id"]))
        for line in lines
    ]
    assert keys == sorted(keys)  # by chunk, then by position


def _chunks(config: Configuration, source: Path) -> list[str]:
    out = io.BytesIO()
    api.chunk(config, source, output=out)
    return out.getvalue().decode().splitlines()


# -- the chain: extract (rules) -> normalize -> bundle -> validate, as make demo runs it --------

DEMO = REPO / "fixtures" / "demo"


def test_the_demo_chain_from_the_command_line(tmp_path: Path) -> None:
    """The rules' candidates, through normalize, bundle and validate; no model anywhere."""
    candidates_dir = tmp_path / "candidates"
    candidates_dir.mkdir()
    for path in (DEMO / "candidates").glob("*.jsonl"):
        (candidates_dir / path.name).write_bytes(path.read_bytes())
    common = ["--config", str(DEMO / "streamer.yaml"), "--source", str(SESSION)]
    glossary = ["--glossary", str(DEMO / "campaign.yaml")]
    steps = [
        ["extract", *common, "--output-dir", str(candidates_dir), *glossary, "--lane", "spells"],
        [
            "normalize",
            *common,
            "--candidates-dir",
            str(candidates_dir),
            *glossary,
            "--output-dir",
            str(tmp_path / "lanes"),
        ],
        [
            "bundle",
            *common,
            "--lanes-dir",
            str(tmp_path / "lanes"),
            "--output",
            str(tmp_path / "bundle"),
        ],
        ["validate", str(tmp_path / "bundle")],
    ]
    for step in steps:
        run = run_cli_env(step)
        assert run.status == 0, (step[0], run.stderr)
    spells = json.loads((tmp_path / "bundle" / "lanes" / "spells.json").read_text())
    assert [(r["spell"], r["caster"], r["source_refs"]) for r in spells["records"]] == [
        ("Thunderwave", "Scanlan", [ref("t0116")])
    ]


def test_the_candidates_files_match_the_shipped_line_schemas(tmp_path: Path) -> None:
    header_schema = json.loads(api.schema("notarius.normalization.candidates_header"))
    line_schema = json.loads(api.schema("notarius.normalization.candidate"))
    config = api.load_config(rules_config(tmp_path))
    api.extract(config, SESSION, tmp_path / "out", glossary=DEMO / "campaign.yaml")
    lines = candidates(tmp_path / "out" / "spells.jsonl")
    Draft202012Validator(header_schema).validate(lines[0])
    for line in lines[1:]:
        Draft202012Validator(line_schema).validate(line)
    assert [line["record"]["caster"] for line in lines[1:]] == ["Scanlan", "Scanlan"]

"""``streamer normalize``: rejection reasons, grounding against the chunk plan, catalogs,
glossary, IDs, determinism, content safety, and the chain into ``bundle`` and ``validate``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer.domain.dnd.spell_catalog import ALIASES, match_key, srd_spells
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.normalization.identifiers import record_id
from tests.normalize_support import (
    candidate,
    header,
    normalize,
    normalize_cli,
    records,
    rejections,
    source_case,
    write_candidates,
)
from tests.support import Case, invoke, ref

IDS = [f"u{i}" for i in range(1, 13)]  # chunks of 5 overlapping by 2: u1-u5, u4-u8, u7-u11, u10-u12


def says_all(unit_id: str) -> str:
    """A unit text saying every value these tests use (the support check is
    ``tests/test_support_check.py``'s)."""
    return (
        f"text of {unit_id}: Keyleth, Scanlan, Vex, Grog, Kima, Brenna, the barkeep and "
        "Scanlan's Mother cast Fireball, Hunter's Mark, Light, Shield, Melf's Acid Arrow "
        "and zorp's kettle in the Tavern, on the Road and in the Crypt"
    )


def spells_case(tmp_path: Path, lanes: tuple[str, ...] = ("spells",)) -> Case:
    return source_case(tmp_path / "case", IDS, lanes, text=says_all, max_units=5, overlap_units=2)


def cast(spell: str, caster: str | None, *refs: dict[str, str]) -> dict[str, Any]:
    return {"spell": spell, "caster": caster, "source_refs": list(refs)}


# -- rejections ---------------------------------------------------------------------------

PLANTED: list[tuple[bytes | dict[str, Any], str, str, str | None]] = [
    (b"{not json", "invalid_json", "$", None),
    (b"", "invalid_json", "$", None),
    (b"\xff\xfe", "invalid_json", "$", None),
    (b"[1, 2]", "invalid_candidate", "$", None),
    ({"chunk_id": "chunk-000001"}, "invalid_candidate", "$.record", None),
    ({"chunk_id": "chunk-000001", "record": {}, "extra": 1}, "invalid_candidate", "$", None),
    ({"chunk_id": "", "record": {}}, "invalid_candidate", "$.chunk_id", None),
    (
        candidate("chunk-000001", {"spell": "Fireball", "source_refs": [ref("u1")]}),
        "invalid_record",
        "$.record.caster",
        "chunk-000001",
    ),
    (
        candidate("chunk-000001", cast("", None, ref("u1"))),
        "invalid_record",
        "$.record.spell",
        "chunk-000001",
    ),
    (
        candidate("chunk-000001", {**cast("Fireball", None, ref("u1")), "notes": "x"}),
        "invalid_record",
        "$.record",
        "chunk-000001",
    ),
    (
        candidate("chunk-000001", cast("Fireball", None)),
        "invalid_record",
        "$.record.source_refs",
        "chunk-000001",
    ),
    (
        candidate("chunk-000009", cast("Fireball", None, ref("u1"))),
        "unknown_chunk",
        "$.chunk_id",
        None,
    ),
    (
        candidate("chunk-000001", cast("Fireball", None, ref("u99"))),
        "unknown_unit",
        "$.record.source_refs[0].start_unit_id",
        "chunk-000001",
    ),
    (
        candidate("chunk-000001", cast("Fireball", None, ref("u1"), ref("u2", "u98"))),
        "unknown_unit",
        "$.record.source_refs[1].end_unit_id",
        "chunk-000001",
    ),
    (
        candidate("chunk-000001", cast("Fireball", None, ref("u3", "u2"))),
        "reversed_reference",
        "$.record.source_refs[0]",
        "chunk-000001",
    ),
    (
        candidate("chunk-000002", cast("Fireball", None, ref("u3", "u5"))),
        "outside_chunk",
        "$.record.source_refs[0].start_unit_id",
        "chunk-000002",
    ),
    (
        candidate("chunk-000001", cast("Fireball", None, ref("u5", "u6"))),
        "outside_chunk",
        "$.record.source_refs[0].end_unit_id",
        "chunk-000001",
    ),
]


def test_every_rejection_reason_planted_is_rejected_and_counted(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    good = candidate("chunk-000001", cast("Fireball", "Keyleth", ref("u2")))
    lines = [good, *[line for line, *_ in PLANTED]]
    folder = write_candidates(tmp_path / "candidates", "spells", case, lines)
    result, warnings = normalize(case, folder, tmp_path / "out")
    expected = [
        {"lane_id": "spells", "line": line, "chunk_id": chunk, "reason": reason, "path": path}
        for line, (_, reason, path, chunk) in enumerate(PLANTED, start=3)
    ]
    assert rejections(tmp_path / "out") == expected
    (lane,) = result.receipt()["lanes"]
    counts: dict[str, int] = {}
    for item in expected:
        counts[str(item["reason"])] = counts.get(str(item["reason"]), 0) + 1
    assert lane == {
        "lane_id": "spells",
        "candidates": len(lines),
        "accepted": 1,
        "rejected": dict(sorted(counts.items())),
        "records": 1,
    }
    assert set(counts) == {
        "invalid_json",
        "invalid_candidate",
        "invalid_record",
        "unknown_chunk",
        "unknown_unit",
        "reversed_reference",
        "outside_chunk",
    }
    assert [w for w in warnings if "rejected" in w] == [
        f"lane spells candidate line {item['line']}: rejected, {item['reason']} at {item['path']}"
        for item in expected
    ]
    assert [r["spell"] for r in records(tmp_path / "out", "spells")] == ["Fireball"]


def test_a_unit_one_past_the_chunks_end_is_outside_the_chunk(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    # chunk-000002 is u4..u8 (positions 3..7): u8 is its last unit, u9 the one past it
    lines = [
        candidate("chunk-000002", cast("Shield", None, ref("u8"))),
        candidate("chunk-000002", cast("Shield", None, ref("u7", "u9"))),
        candidate("chunk-000004", cast("Shield", None, ref("u12"))),
    ]
    folder = write_candidates(tmp_path / "candidates", "spells", case, lines)
    normalize(case, folder, tmp_path / "out")
    assert rejections(tmp_path / "out") == [
        {
            "lane_id": "spells",
            "line": 3,
            "chunk_id": "chunk-000002",
            "reason": "outside_chunk",
            "path": "$.record.source_refs[0].end_unit_id",
        }
    ]
    assert [r["source_refs"] for r in records(tmp_path / "out", "spells")] == [
        [ref("u8"), ref("u12")],  # four units apart: one cast (the nearby rule)
    ]


def test_chunk_ids_are_exactly_those_of_streamer_chunk(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    run = invoke(["chunk", "--config", str(case.config), "--source", str(case.source)])
    chunks = [orjson.loads(line) for line in run.stdout.splitlines()]
    lines = [
        candidate(
            chunk["chunk_id"],
            cast("Light", None, ref(chunk["start_unit_id"], chunk["end_unit_id"])),
        )
        for chunk in chunks
    ]
    lines.append(candidate(f"chunk-{len(chunks) + 1:06d}", cast("Light", None, ref("u12"))))
    folder = write_candidates(tmp_path / "candidates", "spells", case, lines)
    normalize(case, folder, tmp_path / "out")
    assert [r["reason"] for r in rejections(tmp_path / "out")] == ["unknown_chunk"]
    assert len(records(tmp_path / "out", "spells")) == 1  # all four overlap: one cast


# -- catalogs and the glossary ------------------------------------------------------------


def test_the_catalog_has_341_names_with_distinct_match_keys_and_aliases_to_srd_names() -> None:
    catalog = srd_spells()
    assert len(catalog.names) == 341
    assert len({match_key(name) for name in catalog.names}) == 341
    assert all(target in catalog.names for target in ALIASES.values())


@pytest.mark.parametrize(
    ("spoken", "canonical"),
    [
        ("counter spell", "Counterspell"),
        ("COUNTERSPELL", "Counterspell"),
        ("Melf's Acid Arrow", "Acid Arrow"),
        ("Tasha\u2019s Hideous Laughter", "Hideous Laughter"),
        ("bigbys hand", "Arcane Hand"),
        ("fire ball", "Fireball"),
        ("hunter\u2019s  mark", "Hunter's Mark"),
        ("antipathy sympathy", "Antipathy/Sympathy"),
        ("Zorp's Sizzling Kettle", "Zorp's Sizzling Kettle"),
        ("fire  bolt ", "Fire Bolt"),
    ],
)
def test_spell_names_are_canonicalized_or_left_as_spoken(spoken: str, canonical: str) -> None:
    assert srd_spells().canonical(spoken) == canonical


def test_an_alias_and_an_unknown_spell_through_normalize(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    lines = [
        candidate("chunk-000001", cast("Melf's acid arrow", None, ref("u1"))),
        candidate("chunk-000001", cast("  zorp's  kettle", "Vex", ref("u3"))),
    ]
    folder = write_candidates(tmp_path / "candidates", "spells", case, lines)
    normalize(case, folder, tmp_path / "out")
    found = records(tmp_path / "out", "spells")
    assert [(r["spell"], r["caster"]) for r in found] == [
        ("Acid Arrow", None),
        ("  zorp's  kettle", "Vex"),
    ]


GLOSSARY = """party:
  - {player: LAURA, character: "Vex'ahlia"}
  - {player: TRAVIS, character: Grog Strongjaw}
names:
  "Vex'ahlia": [Vex, Vexahlia]
  "Grog Strongjaw": [Grog]
  Brenna: [the barkeep]
"""


def test_glossary_aliases_canonicalize_every_name_member_and_the_party_becomes_the_roster(
    tmp_path: Path,
) -> None:
    case = source_case(
        tmp_path / "case",
        IDS,
        ["spells", "npcs", "combat-turns", "party-roster"],
        text=says_all,
        max_units=5,
        overlap_units=2,
    )
    glossary = tmp_path / "campaign.yaml"
    glossary.write_text(GLOSSARY, encoding="utf-8")
    folder = tmp_path / "candidates"
    write_candidates(
        folder,
        "spells",
        case,
        [
            candidate("chunk-000001", cast("Hunter's Mark", "vex", ref("u1"))),
            candidate("chunk-000001", cast("Hunter's Mark", "VEXAHLIA", ref("u1"))),
            candidate("chunk-000001", cast("Hunter's Mark", None, ref("u2"))),
            candidate("chunk-000001", cast("Hunter's Mark", "Scanlan", ref("u3"))),
        ],
    )
    write_candidates(
        folder,
        "npcs",
        case,
        [
            candidate("chunk-000001", {"name": "The Barkeep", "source_refs": [ref("u2")]}),
            candidate("chunk-000002", {"name": "brenna", "source_refs": [ref("u5")]}),
            candidate("chunk-000003", {"name": "Kima", "source_refs": [ref("u9")]}),
            candidate("chunk-000003", {"name": "KIMA", "source_refs": [ref("u7")]}),
        ],
    )
    write_candidates(
        folder,
        "combat-turns",
        case,
        [
            candidate(
                "chunk-000001", {"combatant": "grog", "round": None, "source_refs": [ref("u4")]}
            ),
        ],
    )
    result, _ = normalize(case, folder, tmp_path / "out", glossary=glossary)
    out = tmp_path / "out"
    assert [(r["caster"], r["source_refs"]) for r in records(out, "spells")] == [
        ("Vex'ahlia", [ref("u1"), ref("u2")]),  # a null caster is the same cast nearby
        ("Scanlan", [ref("u3")]),  # another caster: another cast
    ]
    assert [(r["name"], r["source_refs"]) for r in records(out, "npcs")] == [
        ("Brenna", [ref("u2"), ref("u5")]),
        ("KIMA", [ref("u7"), ref("u9")]),  # the spelling cited first, all references
    ]
    assert [(r["combatant"], r["round"]) for r in records(out, "combat-turns")] == [
        ("Grog Strongjaw", None)
    ]
    assert records(out, "party-roster") == [
        {"player": "LAURA", "character": "Vex'ahlia"},
        {"player": "TRAVIS", "character": "Grog Strongjaw"},
    ]
    assert result.files == (
        "combat-turns.json",
        "npcs.json",
        "party-roster.json",
        "rejections.jsonl",
        "spells.json",
    )


def test_the_configured_glossary_is_used_relative_to_the_configuration(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    (case.root / "campaign.yaml").write_text(GLOSSARY, encoding="utf-8")
    case.config.write_text(
        case.config.read_text() + "  normalization:\n    glossary: campaign.yaml\n",
        encoding="utf-8",
    )
    folder = write_candidates(
        tmp_path / "candidates",
        "spells",
        case,
        [
            candidate("chunk-000001", cast("Shield", "vex", ref("u1"))),
        ],
    )
    normalize(case, folder, tmp_path / "out")
    assert records(tmp_path / "out", "spells")[0]["caster"] == "Vex'ahlia"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("names: [a]\n", "glossary GLOSSARY: $.names must be a mapping of names to alias lists"),
        (
            "names: {Vex: [Grog], Grog: []}\n",
            "glossary GLOSSARY: $.names (entry 2): its name is also listed in entry 1 (as its alias 1) (hint: names and aliases are compared by their name key (case, apostrophe forms and spacing ignored))",
        ),
        (
            "names: {Vex: [3]}\n",
            "glossary GLOSSARY: $.names (entry 1)[0] must be a non-empty string",
        ),
        (
            "monsters: []\n",
            'glossary GLOSSARY: $: unknown member "monsters" (hint: accepted: names, party, secrets, spells)',
        ),
        ("names: {Vex: []}\nnames: {}\n", "glossary GLOSSARY line 2: duplicate key"),
        ("party: [{player: LAURA}]\n", "glossary: $.party[0].character is required"),
    ],
)
def test_glossary_errors_are_configuration_errors_without_names(
    tmp_path: Path, text: str, message: str
) -> None:
    case = source_case(tmp_path / "case", IDS, ["spells", "party-roster"], text=says_all)
    glossary = tmp_path / "g.yaml"
    glossary.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        normalize(case, tmp_path, tmp_path / "out", glossary=glossary)
    assert raised.value.one_line() == message.replace("GLOSSARY", str(glossary))
    assert not (tmp_path / "out").exists()


# -- identity, IDs and determinism --------------------------------------------------------


def test_duplicates_from_overlapping_chunks_collapse_and_distinct_evidence_does_not(
    tmp_path: Path,
) -> None:
    case = source_case(
        tmp_path / "case",
        IDS,
        ["spells", "scene-descriptions"],
        text=says_all,
        max_units=5,
        overlap_units=2,
    )
    folder = tmp_path / "candidates"
    write_candidates(
        folder,
        "spells",
        case,
        [
            candidate("chunk-000001", cast("Fireball", "Keyleth", ref("u4", "u5"))),
            candidate("chunk-000002", cast("fire ball", "Keyleth", ref("u5"), ref("u4", "u5"))),
            candidate("chunk-000002", cast("Fireball", "Scanlan", ref("u7"))),  # another cast
            candidate("chunk-000002", cast("Fireball", None, ref("u5"))),  # the same, nearby
        ],
    )
    write_candidates(
        folder,
        "scene-descriptions",
        case,
        [
            {
                "chunk_id": "chunk-000001",
                "record": {"location": "Tavern", "source_ref": ref("u2", "u5")},
            },
            {
                "chunk_id": "chunk-000002",
                "record": {"location": "Tavern", "source_ref": ref("u4", "u8")},
            },
            {
                "chunk_id": "chunk-000003",
                "record": {"location": "Road", "source_ref": ref("u9", "u11")},
            },
        ],
    )
    normalize(case, folder, tmp_path / "out")
    out = tmp_path / "out"
    assert [(r["caster"], r["source_refs"]) for r in records(out, "spells")] == [
        ("Keyleth", [ref("u4", "u5"), ref("u5")]),
        ("Scanlan", [ref("u7")]),
    ]
    assert [(r["location"], r["source_ref"]) for r in records(out, "scene-descriptions")] == [
        ("Tavern", ref("u2", "u8")),  # the union of its fragments: first start, last end
        ("Road", ref("u9", "u11")),
    ]


def test_the_id_function_is_the_documented_one(tmp_path: Path) -> None:
    import hashlib

    case = spells_case(tmp_path)
    folder = write_candidates(
        tmp_path / "candidates",
        "spells",
        case,
        [
            candidate("chunk-000001", cast("Fireball", None, ref("u2", "u3"))),
        ],
    )
    normalize(case, folder, tmp_path / "out")
    (record,) = records(tmp_path / "out", "spells")
    text = '["doc-1","spells",{"caster":null,"spell":"Fireball"},1]'
    assert record["spell_cast_id"] == "spell-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    assert (
        record_id("npc", "doc-1", "npcs", "brenna", None)
        == "npc-" + hashlib.sha256(b'["doc-1","npcs","brenna",null]').hexdigest()[:16]
    )


def all_lane_lines() -> dict[str, list[dict[str, Any] | bytes]]:
    return {
        "spells": [
            candidate("chunk-000001", cast("Fireball", "Scanlan", ref("u2"))),
            candidate("chunk-000002", cast("Fireball", "Keyleth", ref("u4", "u5"))),
            candidate("chunk-000003", cast("Shield", None, ref("u9"))),
            candidate("chunk-000004", cast("Shield", None, ref("u11", "u12"))),
            b"broken",
        ],
        "npcs": [
            candidate("chunk-000001", {"name": "Brenna", "source_refs": [ref("u3")]}),
            candidate("chunk-000003", {"name": "brenna", "source_refs": [ref("u8")]}),
            candidate("chunk-000003", {"name": "Kima", "source_refs": [ref("u9")]}),
        ],
        "scene-descriptions": [
            candidate("chunk-000001", {"location": None, "source_ref": ref("u1", "u5")}),
            candidate("chunk-000002", {"location": None, "source_ref": ref("u4", "u6")}),
            candidate("chunk-000004", {"location": "Road", "source_ref": ref("u10", "u12")}),
        ],
    }


def run_lines(tmp_path: Path, name: str, lines: dict[str, list[Any]]) -> dict[str, bytes]:
    case = source_case(
        tmp_path / "case", IDS, list(lines), text=says_all, max_units=5, overlap_units=2
    )
    folder = tmp_path / f"candidates-{name}"
    for lane_id, items in lines.items():
        write_candidates(folder, lane_id, case, items)
    out = tmp_path / f"out-{name}"
    normalize(case, folder, out)
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def reasons(data: bytes) -> list[tuple[str, str]]:
    return sorted((r["reason"], r["path"]) for r in map(orjson.loads, data.splitlines()))


def test_shuffled_candidate_order_gives_the_same_bytes(tmp_path: Path) -> None:
    lines = all_lane_lines()
    first = run_lines(tmp_path, "a", lines)
    shuffler = random.Random(7)
    for attempt in range(3):
        shuffled = {lane: shuffler.sample(items, len(items)) for lane, items in lines.items()}
        again = run_lines(tmp_path, f"s{attempt}", shuffled)
        lanes = {name: data for name, data in again.items() if name != "rejections.jsonl"}
        assert lanes == {name: data for name, data in first.items() if name != "rejections.jsonl"}
        # a rejection names its line, which moved: the same rejections, by reason and path
        assert reasons(again["rejections.jsonl"]) == reasons(first["rejections.jsonl"])
    assert run_lines(tmp_path, "b", lines) == first


def ids_by_value(files: dict[str, bytes]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, data in files.items():
        if name.endswith(".json"):
            for record in orjson.loads(data)["records"]:
                identifier = next(iter(record.values()))
                out[identifier] = record
    return out


@pytest.mark.parametrize("lane", ["spells", "npcs", "scene-descriptions"])
def test_adding_or_removing_an_unrelated_candidate_renames_nothing(
    tmp_path: Path, lane: str
) -> None:
    lines = all_lane_lines()
    before = ids_by_value(run_lines(tmp_path, "before", lines))
    extra = {
        "spells": candidate("chunk-000003", cast("Light", None, ref("u7"))),
        "npcs": candidate(
            "chunk-000004", {"name": "Scanlan's Mother", "source_refs": [ref("u12")]}
        ),
        "scene-descriptions": candidate(
            "chunk-000003", {"location": "Crypt", "source_ref": ref("u7", "u8")}
        ),
    }[lane]
    added = ids_by_value(run_lines(tmp_path, "added", {**lines, lane: [extra, *lines[lane]]}))
    assert set(before) < set(added) and len(added) == len(before) + 1
    assert all(added[identifier] == record for identifier, record in before.items())
    alone = {"spells": 0, "npcs": 2, "scene-descriptions": 2}[lane]  # a record of its own
    removed = {**lines, lane: [item for i, item in enumerate(lines[lane]) if i != alone]}
    after = ids_by_value(run_lines(tmp_path, "removed", removed))
    assert set(after) < set(before) and len(after) == len(before) - 1
    assert all(before[identifier] == record for identifier, record in after.items())


# -- failures and content safety ----------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"source": {"document_id": "other", "semantic_digest": "sha256:" + "0" * 64}},
            "candidates spells.jsonl line 1: $.source.document_id does not name the source document",
        ),
        (
            {"artifact_kind": "dnd/npcs"},
            "candidates spells.jsonl line 1: $.artifact_kind is not the lane's kind dnd/spell-casts",
        ),
        (
            {"lane_id": "npcs"},
            "candidates spells.jsonl line 1: $.lane_id does not name lane spells",
        ),
        (
            {"extractor": None},
            "candidates spells.jsonl line 1: $.extractor must be an object of strings",
        ),
    ],
)
def test_a_header_naming_another_document_or_kind_fails_the_run_and_writes_nothing(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    case = spells_case(tmp_path)
    head = {**header("spells", case.document_id, case.digest), **change}
    folder = write_candidates(tmp_path / "candidates", "spells", case, [], head=head)
    run = normalize_cli(case, folder, tmp_path / "out")
    assert (run.status, run.stdout) == (3, b"")
    assert run.stderr == f"streamer: error: {message}\n"
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_a_digest_of_another_version_fails(tmp_path: Path) -> None:
    case = spells_case(tmp_path)
    head = header("spells", case.document_id, "sha256:" + "1" * 64)
    folder = write_candidates(tmp_path / "candidates", "spells", case, [], head=head)
    with pytest.raises(InputError, match=r"semantic_digest is not the source document's"):
        normalize(case, folder, tmp_path / "out")


MARKER = "MARKER-\u00e9\u4e00-7f3a"


def marked(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            marked(k) if k not in {"chunk_id", "record"} else k: marked(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [marked(item) for item in value]
    if isinstance(value, str):
        return value + MARKER
    return value


def test_a_marker_in_every_candidate_value_never_reaches_stderr_or_rejections(
    tmp_path: Path,
) -> None:
    case = spells_case(tmp_path)
    lines: list[Any] = [marked(line) for line, *_ in PLANTED if isinstance(line, dict)]
    lines += [
        marked(candidate("chunk-000001", cast("Fireball", None, ref("u1")))),
        candidate(
            "chunk-000001", {"spell": MARKER, "caster": MARKER, "source_refs": [ref("u1", MARKER)]}
        ),
        candidate("chunk-000001", {"spell": MARKER, "caster": 3, "source_refs": [ref("u1")]}),
        candidate(
            "chunk-000001", {MARKER: 1, "spell": "x", "caster": None, "source_refs": [ref("u1")]}
        ),
        {MARKER: MARKER},
        MARKER.encode(),
    ]
    folder = write_candidates(tmp_path / "candidates", "spells", case, lines)
    run = normalize_cli(case, folder, tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.stderr.count("rejected") == len(lines)
    assert MARKER not in run.stderr
    assert MARKER.encode() not in run.stdout
    assert MARKER.encode() not in (tmp_path / "out" / "rejections.jsonl").read_bytes()


def test_output_passes_validate_after_bundle(tmp_path: Path) -> None:
    case = source_case(
        tmp_path / "case",
        IDS,
        ["spells", "npcs", "scene-descriptions"],
        text=says_all,
        max_units=5,
        overlap_units=2,
    )
    folder = tmp_path / "candidates"
    for lane_id, items in all_lane_lines().items():
        write_candidates(folder, lane_id, case, items)
    lanes = tmp_path / "lanes"
    run = normalize_cli(case, folder, lanes)
    assert run.status == 0, run.stderr
    receipt = orjson.loads(run.stdout)
    assert receipt["files"] == [
        "npcs.json",
        "rejections.jsonl",
        "scene-descriptions.json",
        "spells.json",
    ]
    bundle = invoke(
        [
            "bundle",
            "--config",
            str(case.config),
            "--source",
            str(case.source),
            "--lanes-dir",
            str(lanes),
            "--output",
            str(tmp_path / "bundle"),
        ]
    )
    assert bundle.status == 0, bundle.stderr
    assert orjson.loads(bundle.stdout)["normalized_lanes"] == 3
    valid = invoke(["validate", str(tmp_path / "bundle")])
    assert valid.status == 0, valid.stderr
    again = normalize_cli(case, folder, lanes)
    assert again.status == 2 and "already exists (hint: use --force" in again.stderr
    forced = normalize_cli(case, folder, lanes, "--force")
    assert (forced.status, forced.stdout) == (0, run.stdout)


def test_a_lane_without_candidates_has_no_output_and_is_warned(tmp_path: Path) -> None:
    case = source_case(tmp_path / "case", IDS, ["spells", "npcs"], text=says_all)
    folder = write_candidates(tmp_path / "candidates", "spells", case, [])
    result, warnings = normalize(case, folder, tmp_path / "out", lanes=["npcs", "spells"])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "rejections.jsonl",
        "spells.json",
    ]
    assert warnings == ["lanes without candidates, without a normalized output: npcs"]
    assert [lane.lane_id for lane in result.lanes] == ["npcs", "spells"]
    assert records(tmp_path / "out", "spells") == []
    assert (tmp_path / "out" / "rejections.jsonl").read_bytes() == b""


# -- the shipped line schemas -------------------------------------------------------------


def test_candidate_header_and_rejection_lines_match_their_schemas(tmp_path: Path) -> None:
    from streamer.normalization.rejections import Reason
    from streamer.output.schema_catalog import load_schema
    from tests.bundle_support import schema_errors

    case = spells_case(tmp_path)
    good = candidate("chunk-000001", cast("Fireball", "Keyleth", ref("u2")))
    folder = write_candidates(
        tmp_path / "candidates", "spells", case, [good, *[line for line, *_ in PLANTED]]
    )
    normalize(case, folder, tmp_path / "out")
    found = rejections(tmp_path / "out")
    assert len(found) == len(PLANTED)
    for item in found:
        assert schema_errors(item, "notarius.normalization.rejection") == []
    assert schema_errors({**found[0], "value": "x"}, "notarius.normalization.rejection") == [
        "$: additionalProperties"
    ]
    lines = (folder / "spells.jsonl").read_bytes().splitlines()
    assert schema_errors(orjson.loads(lines[0]), "notarius.normalization.candidates_header") == []
    assert schema_errors(orjson.loads(lines[1]), "notarius.normalization.candidate") == []
    assert schema_errors({"chunk_id": "c"}, "notarius.normalization.candidate") == ["$: required"]
    enum = load_schema("notarius.normalization.rejection")["properties"]["reason"]["enum"]
    assert enum == [reason.value for reason in Reason]


def test_the_demo_candidates_normalize_bundle_and_validate(tmp_path: Path) -> None:
    from tests.bundle_support import DEMO

    args = ["--config", str(DEMO / "streamer.yaml"), "--source", str(DEMO / "session.jsonl")]
    run = invoke(
        [
            "normalize",
            *args,
            "--candidates-dir",
            str(DEMO / "candidates"),
            "--glossary",
            str(DEMO / "campaign.yaml"),
            "--output-dir",
            str(tmp_path / "lanes"),
        ]
    )
    assert run.status == 0, run.stderr
    lanes = {
        lane["lane_id"]: (lane["candidates"], lane["accepted"], lane["records"])
        for lane in orjson.loads(run.stdout)["lanes"]
    }
    assert lanes == {
        "spells": (4, 3, 2),
        "npcs": (2, 2, 1),
        "npc-interactions": (1, 1, 1),
        "combat-turns": (5, 4, 3),
        "item-events": (1, 1, 1),
        "scene-descriptions": (4, 4, 2),
    }
    assert [(r["caster"], r["spell"]) for r in records(tmp_path / "lanes", "spells")] == [
        ("Vex'ahlia", "Hunter's Mark"),
        ("Scanlan", "Thunderwave"),
    ]
    bundle = invoke(
        [
            "bundle",
            *args,
            "--lanes-dir",
            str(tmp_path / "lanes"),
            "--output",
            str(tmp_path / "bundle"),
        ]
    )
    assert bundle.status == 0, bundle.stderr
    assert invoke(["validate", str(tmp_path / "bundle")]).status == 0


def test_docs_list_exactly_the_aliases_and_the_reasons() -> None:
    from streamer.normalization.rejections import Reason
    from tests.support import REPO

    text = (REPO / "docs" / "normalization.md").read_text(encoding="utf-8")
    aliases = text.split("### Spell aliases")[1].split("## Per kind")[0]
    rows = [
        line.split("|")[1:3]
        for line in aliases.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    assert {a.strip(): b.strip() for a, b in rows[1:]} == ALIASES
    reasons = text.split("## Rejections: reasons")[1].split("## Canonical values")[0]
    assert [line.split("`")[1] for line in reasons.splitlines() if line.startswith("| `")] == [
        r.value for r in Reason
    ]

"""Every rule of ``streamer validate`` fails at least once: each case plants exactly one
defect in a valid bundle and asserts the exact lines on stderr and exit status 3.

The same cases run in process with tiny read blocks, unit batches and hash runs
(``test_rules_hold_with_tiny_blocks``): the streamed checks must not depend on where a
block ends.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from streamer.framework.json import events as json_events
from streamer.framework.kinds.registry import SchemaIdentity
from streamer.validation import chunk_map, evidence_check, repeated_ids
from tests.bundle_support import receipt, run_bundle
from tests.support import (
    config_dict,
    invoke,
    lane_output,
    npc,
    ref,
    spell,
    units,
    write_case,
)

# Sixty units with opaque IDs, chunks of 10 overlapping by 2 (the chunk map fixes the
# positions 0, 9, 8, 17, 16, ...). With window 2 the evidence has three contexts:
# positions 3..10 (u5, u8), 28..36 (u30..u31, u34) and 48..52 (u50, an NPC).
IDS = [f"k{(i * 37) % 100:02d}" for i in range(60)]
EVIDENCE = "evidence-context.json"
CHUNK_MAP = "chunk-map.json"
INDEX = "index.json"
SPELLS = "lanes/spells.json"
NPCS = "lanes/npcs.json"
ROSTER = "lanes/party-roster.json"


Plant = Callable[[Path], object]  # plants one defect in a bundle folder


def steps(*plants: Plant) -> Plant:
    """Plants applied in order (a defect that needs several edits to be consistent)."""

    def plant(folder: Path) -> None:
        for each in plants:
            each(folder)

    return plant


def uid(position: int) -> str:
    return IDS[position]


def error(file: str, message: str) -> str:
    """One line of stderr: the bundle file's name is quoted (JSON), then the problem."""
    return f"streamer: error: {orjson.dumps(file).decode()}: {message}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rules")
    config = config_dict(["spells", "npcs"], ["spells", "npcs"], 2)
    config["pipeline"]["chunking"] = {"max_units": 10, "overlap_units": 2}
    lanes = {
        "spells": [
            spell("s1", ref(uid(5))),
            spell("s2", ref(uid(8)), ref(uid(30), uid(31))),
            spell("s3", ref(uid(34))),
        ],
        "npcs": [npc("n1", ref(uid(50)))],
    }
    case = write_case(root / "case", units(IDS), lanes, config=config)
    receipt(run_bundle(case, root / "bundle"))
    return root / "bundle"


@pytest.fixture
def bundle(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "bundle"
    shutil.copytree(built, copy)
    return copy


def edit(path: Path, change: Callable[[Any], object]) -> None:
    document = orjson.loads(path.read_bytes())
    change(document)
    path.write_bytes(orjson.dumps(document) + b"\n")


def evidence(change: Callable[[Any], object]) -> Plant:
    return lambda folder: edit(folder / EVIDENCE, change)


def index(change: Callable[[Any], object]) -> Plant:
    return lambda folder: edit(folder / INDEX, change)


def chunks(change: Callable[[Any], object]) -> Plant:
    return lambda folder: edit(folder / CHUNK_MAP, change)


def lane(file: str, change: Callable[[Any], object]) -> Plant:
    return lambda folder: edit(folder / file, change)


def context(number: int, change: Callable[[Any], object]) -> Plant:
    return evidence(lambda document: change(document["contexts"][number]))


def swap(items: list[Any], a: int, b: int) -> None:
    items[a], items[b] = items[b], items[a]


def write(file: str, data: bytes) -> Plant:
    return lambda folder: (folder / file).write_bytes(data)


@dataclass(frozen=True)
class Rule:
    name: str
    plant: Plant
    lines: list[str]


def _set(target: dict[str, Any], **members: Any) -> None:
    target.update(members)


RULES = [
    # -- the files of the bundle ------------------------------------------------------
    Rule(
        "index missing",
        lambda folder: (folder / INDEX).unlink(),
        [error(INDEX, "missing: a bundle is described by its index")],
    ),
    Rule(
        "described file missing",
        lambda folder: (folder / NPCS).unlink(),
        [error(NPCS, "missing: index.json describes it at $.lanes[0]")],
    ),
    Rule(
        "file not described",
        write(".hidden", b""),
        [error(".hidden", "present but not described in index.json")],
    ),
    Rule(
        "a forged line in a file name stays on its line",
        write("x\nstreamer: error: forged", b""),
        ['streamer: error: "x\\nstreamer: error: forged": present but not described in index.json'],
    ),
    Rule(
        "described file is a symbolic link",
        steps(
            lambda folder: (folder / NPCS).unlink(),
            lambda folder: (folder / NPCS).symlink_to(folder / SPELLS),
        ),
        [
            error(
                NPCS,
                "is not a regular file (a link, FIFO or device): streamer bundle writes none",
            )
        ],
    ),
    Rule(
        "described file is a FIFO (never opened: it would block)",
        steps(
            lambda folder: (folder / CHUNK_MAP).unlink(),
            lambda folder: os.mkfifo(folder / CHUNK_MAP),
        ),
        [
            error(
                CHUNK_MAP,
                "is not a regular file (a link, FIFO or device): streamer bundle writes none",
            )
        ],
    ),
    Rule(
        "index not JSON",
        write(INDEX, b'{"artifact_kind": '),
        [error(INDEX, "not valid JSON")],
    ),
    Rule(
        "index larger than its bound (valid JSON, padded with white space)",
        lambda folder: (folder / INDEX).write_bytes(
            (folder / INDEX).read_bytes() + b" " * (16 << 20)
        ),
        [error(INDEX, "is larger than its bound of 16 MiB")],
    ),
    Rule("lane payload not JSON", write(SPELLS, b"[1,]"), [error(SPELLS, "not valid JSON")]),
    Rule("chunk map not JSON", write(CHUNK_MAP, b"{"), [error(CHUNK_MAP, "not valid JSON")]),
    Rule(
        "evidence not JSON (after valid contexts)",
        lambda folder: (folder / EVIDENCE).write_bytes(
            (folder / EVIDENCE).read_bytes().rstrip()[:-2] + b"]"
        ),
        [error(EVIDENCE, "not valid JSON")],
    ),
    Rule(
        "evidence followed by a second document",
        lambda folder: (folder / EVIDENCE).write_bytes((folder / EVIDENCE).read_bytes() + b"{}\n"),
        [error(EVIDENCE, "not valid JSON")],
    ),
    # -- index.json -------------------------------------------------------------------
    Rule(
        "index schema: a required member",
        index(lambda document: document.pop("chunk_map")),
        [error(INDEX, "$.chunk_map is required (notarius.output.index)")],
    ),
    Rule(
        "lane descriptor naming another file",
        index(lambda document: document["lanes"][0].update(file="lanes/other.json")),
        [
            error(INDEX, "$.lanes[0].file is not lanes/npcs.json"),
            error("lanes/other.json", "missing: index.json describes it at $.lanes[0]"),
            error(NPCS, "present but not described in index.json"),
        ],
    ),
    Rule(
        "lanes not sorted",
        index(lambda document: swap(document["lanes"], 0, 1)),
        [error(INDEX, "$.lanes[1]: lanes are not sorted by distinct lane_id")],
    ),
    Rule(
        "unknown schema",
        index(lambda document: document["lanes"][0]["schema"].update(id="notarius.dnd.wizards")),
        [error(INDEX, "$.lanes[0].schema.id names no schema streamer knows")],
    ),
    # -- lane payloads ----------------------------------------------------------------
    Rule(
        "lane payload schema: required, unknown member, type, minLength",
        lane(
            SPELLS,
            lambda document: (
                document["records"][0].update(spell=""),
                document["records"][1].update(caster=["SECRET SPELL TEXT"]),
                document["records"][2].update({"SECRET MEMBER": "SECRET VALUE"}),
                document["records"][2].pop("spell_cast_id"),
            ),
        ),
        [
            error(
                SPELLS,
                "$.records[0].spell breaks the schema rule 'minLength' (notarius.dnd.spell_casts)",
            ),
            error(
                SPELLS,
                "$.records[1].caster breaks the schema rule 'type' (notarius.dnd.spell_casts)",
            ),
            error(
                SPELLS,
                "$.records[2] has a member its schema does not allow (notarius.dnd.spell_casts)",
            ),
            error(SPELLS, "$.records[2].spell_cast_id is required (notarius.dnd.spell_casts)"),
        ],
    ),
    Rule(
        "lane payload against a foreign schema",
        index(lambda document: document["lanes"][1].update(schema=document["chunk_map"]["schema"])),
        [
            error(
                SPELLS,
                "$ has a member its schema does not allow (notarius.source.chunk_map)",
            ),
            error(SPELLS, "$.chunking is required (notarius.source.chunk_map)"),
            error(SPELLS, "$.chunks is required (notarius.source.chunk_map)"),
            error(
                SPELLS,
                "$.artifact_kind breaks the schema rule 'const' (notarius.source.chunk_map)",
            ),
            error(SPELLS, "$.schema breaks the schema rule 'const' (notarius.source.chunk_map)"),
        ],
    ),
    Rule(
        "record count disagrees with the descriptor",
        index(lambda document: document["lanes"][1].update(record_count=7)),
        [
            error(
                SPELLS,
                "$.record_count disagrees with its descriptor (index.json $.lanes[1].record_count)",
            )
        ],
    ),
    Rule(
        "lane ID disagrees with the descriptor",
        steps(
            index(lambda document: document["lanes"][0].update(lane_id="npcs-2")),
            index(lambda document: document["lanes"][0].update(file="lanes/npcs-2.json")),
            lambda folder: (folder / NPCS).rename(folder / "lanes/npcs-2.json"),
        ),
        [
            error(
                "lanes/npcs-2.json",
                "$.lane_id disagrees with its descriptor (index.json $.lanes[0].lane_id)",
            ),
            error(EVIDENCE, "$.contexts[2].references[0]: lane npcs has no payload in the bundle"),
        ],
    ),
    Rule(
        "source of a lane payload",
        lane(NPCS, lambda document: document["source"].update(document_id="doc-2")),
        [error(NPCS, "$.source is not the source of index.json")],
    ),
    Rule(
        "record IDs repeated in a lane payload",
        lambda folder: edit(
            folder / SPELLS,
            lambda document: document["records"][2].update(spell_cast_id="s1"),
        ),
        [error(SPELLS, "$.records[2] repeats the record ID of $.records[0]")],
    ),
    # -- the chunk map ----------------------------------------------------------------
    Rule(
        "chunk map schema: an entry (streamed)",
        chunks(lambda document: document["chunks"][2].update(unit_count=0)),
        [
            error(
                CHUNK_MAP,
                "$.chunks[2].unit_count breaks the schema rule 'minimum' "
                "(notarius.source.chunk_map)",
            )
        ],
    ),
    Rule(
        "overlap not below max_units",
        chunks(lambda document: document["chunking"].update(overlap_units=10)),
        [error(CHUNK_MAP, "$.chunking.overlap_units must be below max_units")],
    ),
    Rule(
        "chunk IDs out of sequence",
        chunks(lambda document: document["chunks"][3].update(chunk_id="chunk-000009")),
        [error(CHUNK_MAP, "$.chunks[3].chunk_id is not chunk-000004")],
    ),
    Rule(
        "a chunk shorter than max_units before the last",
        chunks(lambda document: document["chunks"][1].update(unit_count=9)),
        [error(CHUNK_MAP, "$.chunks[1].unit_count does not follow $.chunking")],
    ),
    Rule(
        "the last chunk longer than max_units",
        chunks(lambda document: document["chunks"][-1].update(unit_count=11)),
        [error(CHUNK_MAP, "$.chunks[7].unit_count does not follow $.chunking")],
    ),
    # -- the evidence context ---------------------------------------------------------
    Rule(
        "evidence schema: a unit's member (streamed)",
        context(1, lambda item: item["units"][3].pop("text")),
        [
            error(
                EVIDENCE,
                "$.contexts[1].units[3].text is required (notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "evidence schema: a unit's self-reference is required",
        context(0, lambda item: item["units"][1].pop("source_ref")),
        [
            error(
                EVIDENCE,
                "$.contexts[0].units[1].source_ref is required (notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "evidence schema: empty metadata",
        context(2, lambda item: item["units"][0].update(metadata={})),
        [
            error(
                EVIDENCE,
                "$.contexts[2].units[0].metadata breaks the schema rule 'minProperties' "
                "(notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "evidence schema: a context without units",
        context(2, lambda item: item.update(units=[])),
        [
            error(
                EVIDENCE,
                "$.contexts[2].units breaks the schema rule 'minItems' "
                "(notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "evidence schema: a context's member and a reference's lane IDs",
        context(
            1,
            lambda item: (
                item.update(extra=[1, 2]),
                item["references"][0].update(lane_ids=["spells", "spells"]),
            ),
        ),
        [
            error(
                EVIDENCE,
                "$.contexts[1] has a member its schema does not allow "
                "(notarius.source.evidence_context)",
            ),
            error(
                EVIDENCE,
                "$.contexts[1].references[0].lane_ids breaks the schema rule 'uniqueItems' "
                "(notarius.source.evidence_context)",
            ),
        ],
    ),
    Rule(
        "evidence schema: the header",
        evidence(lambda document: document.update(window_units=-1)),
        [
            error(
                EVIDENCE,
                "$.window_units breaks the schema rule 'minimum' "
                "(notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "evidence schema: a constant member (the descriptor says the same)",
        evidence(lambda document: document["schema"].update(version="v2")),
        [
            error(
                EVIDENCE,
                "$.schema breaks the schema rule 'const' (notarius.source.evidence_context)",
            )
        ],
    ),
    Rule(
        "source of the evidence document",
        evidence(lambda document: document["source"].update(document_id="doc-2")),
        [error(EVIDENCE, "$.source is not the source of index.json")],
    ),
    Rule(
        "allowlist not sorted",
        evidence(lambda document: document.update(lanes=["spells", "npcs"])),
        [error(EVIDENCE, "$.lanes is not sorted")],
    ),
    Rule(
        "unit ID repeated",
        context(
            1, lambda item: item["units"].insert(4, orjson.loads(orjson.dumps(item["units"][0])))
        ),
        [
            error(
                EVIDENCE, f'$.contexts[1].units[4]: unit "{uid(28)}" repeats $.contexts[1].units[0]'
            )
        ],
    ),
    Rule(
        "unit ID repeated in another context",
        evidence(
            lambda document: document["contexts"][1]["units"].insert(
                4, document["contexts"][0]["units"][2]
            )
        ),
        [
            error(
                EVIDENCE, f'$.contexts[1].units[4]: unit "{uid(5)}" repeats $.contexts[0].units[2]'
            )
        ],
    ),
    Rule(
        "a unit's self-reference cites another unit",
        context(0, lambda item: item["units"][4]["source_ref"].update(end_unit_id=uid(8))),
        [error(EVIDENCE, "$.contexts[0].units[4].source_ref does not cite the unit itself")],
    ),
    Rule(
        "units out of source order (positions fixed by the chunk map)",
        context(1, lambda item: swap(item["units"], 4, 5)),
        [
            error(
                EVIDENCE,
                f'$.contexts[1].units[5]: unit "{uid(32)}" is out of order (the chunk map puts '
                "it at source position 32)",
            )
        ],
    ),
    Rule(
        "the first unit is not the context's start",
        context(2, lambda item: swap(item["units"], 0, 1)),
        [
            error(
                EVIDENCE,
                f'$.contexts[2].units[1]: unit "{uid(48)}" is out of order (the chunk map puts '
                "it at source position 48)",
            ),
            error(
                EVIDENCE,
                f'$.contexts[2].start_unit_id "{uid(48)}" is not the context\'s first unit: units '
                "are out of order or missing",
            ),
        ],
    ),
    Rule(
        "the last unit is not the context's end",
        context(0, lambda item: item["units"].pop()),
        [
            error(
                EVIDENCE,
                f'$.contexts[0].end_unit_id "{uid(10)}" is not the context\'s last unit: units '
                "are out of order or missing",
            ),
            error(
                EVIDENCE,
                "$.contexts[0] is not the union of its references expanded by window_units 2",
            ),
        ],
    ),
    Rule(
        "contexts that touch (a reference of spells reaches the next context)",
        lambda folder: (
            lane(
                SPELLS,
                lambda document: document["records"].append(spell("s4", ref(uid(13), uid(25)))),
            )(folder),
            index(lambda document: document["lanes"][1].update(record_count=4))(folder),
            context(
                0,
                lambda item: (
                    item.update(end_unit_id=uid(27)),
                    item["references"].append(
                        {"source_ref": ref(uid(13), uid(25)), "lane_ids": ["spells"]}
                    ),
                    item["units"].extend(published(position) for position in range(11, 28)),
                ),
            )(folder),
        ),
        [error(EVIDENCE, "$.contexts[1] overlaps or touches the previous context")],
    ),
    Rule(
        "lane IDs of a reference not sorted",
        lambda folder: (
            lane(NPCS, lambda document: document["records"].append(npc("n2", ref(uid(5)))))(folder),
            index(lambda document: document["lanes"][0].update(record_count=2))(folder),
            context(0, lambda item: item["references"][0].update(lane_ids=["spells", "npcs"]))(
                folder
            ),
        ),
        [error(EVIDENCE, "$.contexts[0].references[0].lane_ids is not sorted")],
    ),
    Rule(
        "a reference's lane not allowlisted",
        context(2, lambda item: item["references"][0].update(lane_ids=["combat-turns", "npcs"])),
        [error(EVIDENCE, "$.contexts[2].references[0]: lane combat-turns is not in $.lanes")],
    ),
    Rule(
        "a reference's lane without a payload",
        steps(
            evidence(lambda document: document.update(lanes=["npcs", "scenes", "spells"])),
            context(2, lambda item: item["references"][0].update(lane_ids=["npcs", "scenes"])),
        ),
        [error(EVIDENCE, "$.contexts[2].references[0]: lane scenes has no payload in the bundle")],
    ),
    Rule(
        "a reference outside its context",
        evidence(
            lambda document: document["contexts"][0]["references"].append(
                document["contexts"][1]["references"].pop()
            )
        ),
        [
            error(
                EVIDENCE,
                f'$.contexts[0].references[2]: unit "{uid(34)}" is outside the context\'s bounds',
            ),
            error(
                EVIDENCE,
                "$.contexts[1] is not the union of its references expanded by window_units 2",
            ),
        ],
    ),
    Rule(
        "a reference reversed by reordered units",
        context(1, lambda item: swap(item["units"], 2, 3)),
        [
            error(
                EVIDENCE,
                f'$.contexts[1].references[0]: reversed, "{uid(30)}" comes after "{uid(31)}"',
            )
        ],
    ),
    Rule(
        "references out of order",
        context(0, lambda item: swap(item["references"], 0, 1)),
        [error(EVIDENCE, "$.contexts[0].references[1]: references are out of order or repeated")],
    ),
    Rule(
        "a context that is not the union of its references",
        context(
            2,
            lambda item: (
                item["units"].append(published(53)),
                item.update(end_unit_id=uid(53)),
            ),
        ),
        [
            error(
                EVIDENCE,
                "$.contexts[2] is not the union of its references expanded by window_units 2",
            )
        ],
    ),
    # -- lane payloads against the evidence -------------------------------------------
    Rule(
        "a lane's reference missing from the evidence",
        context(0, lambda item: item["references"][1].update(lane_ids=["npcs"])),
        [
            error(
                SPELLS, "$.records[1] reference 0 is not in evidence-context.json for lane spells"
            ),
            error(
                EVIDENCE,
                "$.contexts[0].references[1]: lane npcs does not cite this reference in "
                "lanes/npcs.json",
            ),
        ],
    ),
    Rule(
        "an allowlisted lane whose kind cannot expose evidence",
        lambda folder: (
            write(ROSTER, orjson.dumps(roster(folder)) + b"\n")(folder),
            index(lambda document: document["lanes"].insert(1, roster_descriptor(document)))(
                folder
            ),
            evidence(lambda document: document.update(lanes=["npcs", "party-roster", "spells"]))(
                folder
            ),
        ),
        [error(ROSTER, "allowlisted, but its artifact kind cannot expose evidence")],
    ),
]


def roster(folder: Path) -> dict[str, Any]:
    source = orjson.loads((folder / INDEX).read_bytes())["source"]
    return lane_output(
        "party-roster",
        [{"player": "P", "character": "C"}],
        document_id=source["document_id"],
        digest=source["semantic_digest"],
    )


def roster_descriptor(document: Any) -> dict[str, Any]:
    descriptor = dict(document["lanes"][0])
    kind = SchemaIdentity.for_kind("dnd/party-roster")
    descriptor.update(
        file=ROSTER,
        artifact_kind="dnd/party-roster",
        schema=kind.to_json(),
        lane_id="party-roster",
        record_count=1,
    )
    return descriptor


def published(position: int) -> dict[str, Any]:
    """A unit of the evidence document at ``position`` (as the source would give it)."""
    unit_id = uid(position)
    return {
        "unit_id": unit_id,
        "kind": "utterance",
        "text": f"text of {unit_id}",
        "source_ref": ref(unit_id),
    }


def validate(folder: Path) -> tuple[int, list[str], bytes]:
    run = invoke(["validate", str(folder)])
    return run.status, run.stderr.splitlines(), run.stdout


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_rule(bundle: Path, rule: Rule) -> None:
    rule.plant(bundle)
    assert validate(bundle) == (3, rule.lines, b"")


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_rules_hold_with_tiny_blocks(
    bundle: Path, rule: Rule, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "FIFO" in rule.name:
        pytest.skip("the FIFO case is the same in process")
    monkeypatch.setattr(json_events, "BLOCK_SIZE", 7)
    monkeypatch.setattr(evidence_check, "BATCH", 2)
    monkeypatch.setattr(repeated_ids, "RUN", 3)
    rule.plant(bundle)
    assert [
        f"streamer: error: {line}" for line in api.validate_bundle(bundle).problems
    ] == rule.lines


def test_the_valid_bundle_is_valid_with_tiny_blocks(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_events, "BLOCK_SIZE", 3)
    monkeypatch.setattr(evidence_check, "BATCH", 1)
    assert api.validate_bundle(bundle).problems == []
    assert chunk_map is not None


def _reverse_members(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reverse_members(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reverse_members(item) for item in value]
    return value


def reformat(folder: Path) -> None:
    """Every JSON document of ``folder`` with its members in reverse order and indented: the
    evidence header after its contexts, units before references, chunks before chunking."""
    for path in folder.rglob("*.json"):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            document = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError:
            continue
        path.write_bytes(orjson.dumps(_reverse_members(document), option=orjson.OPT_INDENT_2))


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_rules_hold_whatever_the_member_order(
    bundle: Path, rule: Rule, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "FIFO" in rule.name or "bound" in rule.name:
        pytest.skip("the same in any member order (and reformatting drops the padding)")
    monkeypatch.setattr(evidence_check, "BATCH", 2)
    rule.plant(bundle)
    reformat(bundle)
    problems = [f"streamer: error: {line}" for line in api.validate_bundle(bundle).problems]
    assert sorted(problems) == sorted(rule.lines)


def test_a_reformatted_bundle_is_valid(bundle: Path) -> None:
    reformat(bundle)
    assert validate(bundle)[:2] == (0, [])


def test_a_file_that_cannot_be_read(
    bundle: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from streamer.cli.main import main

    real_open = os.open

    def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name in ("spells.json", "evidence-context.json"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(bundle)])
    assert exited.value.code == 3
    assert capsys.readouterr().err.splitlines() == [
        error(SPELLS, "cannot be read (Permission denied)"),
        error(EVIDENCE, "cannot be read (Permission denied)"),
    ]

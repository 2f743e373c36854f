"""``streamer bundle``: layout, exact bytes, receipt, lane selection, failures, --force."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from tests.bundle_support import (
    bundle_files,
    demo_case,
    receipt,
    run_bundle,
    write_config,
)
from tests.support import (
    Case,
    chunk_map_entries,
    config_dict,
    invoke,
    json_bytes,
    jsonl_bytes,
    lane_output,
    npc,
    ref,
    scene,
    spell,
    turn,
    units,
    write_case,
)

IDS = ["u1", "u2", "u3", "u4", "u5"]


def small_case(root: Path, *, allowlist: list[str] | None = None, window: int = 0) -> Case:
    """Five units, a spell citing u2 and an NPC citing u4..u5; chunks of 3 overlapping by 1."""
    config = config_dict(["spells", "npcs"], allowlist, window)
    config["pipeline"]["chunking"] = {"max_units": 3, "overlap_units": 1}
    lanes = {"spells": [spell("s1", ref("u2"))], "npcs": [npc("n1", ref("u4", "u5"))]}
    return write_case(root, units(IDS), lanes, config=config)


def schema(kind: str) -> str:
    family, _, name = kind.partition("/")
    stem = f"{family}.{name.replace('-', '_')}"
    return (
        f'{{"id":"notarius.{stem}","name":"notarius_{stem.replace(".", "_")}_v1","version":"v1"}}'
    )


def descriptor(file: str, kind: str) -> str:
    return (
        f'{{"file":"{file}","artifact_kind":"{kind}","media_type":"application/json",'
        f'"schema":{schema(kind)}'
    )


def test_small_bundle_has_the_documented_layout_byte_for_byte(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case", allowlist=["spells"])
    out = tmp_path / "bundle"
    run = run_bundle(case, out)
    assert receipt(run) == {
        "status": "ok",
        "document_id": "doc-1",
        "normalized_lanes": 2,
        "files": [
            "chunk-map.json",
            "evidence-context.json",
            "index.json",
            "lanes/npcs.json",
            "lanes/spells.json",
        ],
    }
    assert run.stderr == ""
    source = f'{{"document_id":"doc-1","semantic_digest":"{case.digest}"}}'
    files = bundle_files(out)
    assert (
        files["index.json"]
        == (
            f'{{"artifact_kind":"output/index","schema":{schema("output/index")},'
            f'"source":{source},"lanes":['
            f'{descriptor("lanes/npcs.json", "dnd/npcs")},"lane_id":"npcs","record_count":1}},'
            f'{descriptor("lanes/spells.json", "dnd/spell-casts")},"lane_id":"spells",'
            '"record_count":1}],'
            f'"chunk_map":{descriptor("chunk-map.json", "source/chunk-map")}}},'
            f'"evidence_context":{descriptor("evidence-context.json", "source/evidence-context")}}}'
            "}\n"
        ).encode()
    )
    assert (
        files["chunk-map.json"]
        == (
            f'{{"artifact_kind":"source/chunk-map","schema":{schema("source/chunk-map")},'
            f'"source":{source},"chunking":{{"max_units":3,"overlap_units":1}},"chunks":['
            '{"chunk_id":"chunk-000001","start_unit_id":"u1","end_unit_id":"u3","unit_count":3},'
            '{"chunk_id":"chunk-000002","start_unit_id":"u3","end_unit_id":"u5","unit_count":3}]}\n'
        ).encode()
    )
    assert (
        files["lanes/spells.json"]
        == (
            f'{{"lane_id":"spells","artifact_kind":"dnd/spell-casts",'
            f'"schema":{schema("dnd/spell-casts")},"source":{source},"records":['
            '{"spell_cast_id":"s1","spell":"Fireball","caster":null,'
            '"source_refs":[{"start_unit_id":"u2","end_unit_id":"u2"}]}]}\n'
        ).encode()
    )
    assert (
        files["evidence-context.json"]
        == (
            f'{{"artifact_kind":"source/evidence-context",'
            f'"schema":{schema("source/evidence-context")},"source":{source},"window_units":0,'
            '"lanes":["spells"],"contexts":[{"start_unit_id":"u2","end_unit_id":"u2",'
            '"references":[{"source_ref":{"start_unit_id":"u2","end_unit_id":"u2"},'
            '"lane_ids":["spells"]}],"units":[{"unit_id":"u2","kind":"utterance",'
            '"text":"text of u2","source_ref":{"start_unit_id":"u2","end_unit_id":"u2"},'
            '"metadata":{"speaker":"GM","start_ms":10,"end_ms":15}}]}]}\n'
        ).encode()
    )


def test_lane_payloads_are_canonical_whatever_the_input_formatting(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case")
    document = orjson.loads((case.lanes_dir / "npcs.json").read_bytes())
    shuffled = {key: document[key] for key in reversed(list(document))}
    shuffled["records"] = [dict(reversed(list(record.items()))) for record in document["records"]]
    (case.lanes_dir / "npcs.json").write_bytes(orjson.dumps(shuffled, option=orjson.OPT_INDENT_2))
    receipt(run_bundle(case, tmp_path / "bundle"))
    assert (tmp_path / "bundle" / "lanes" / "npcs.json").read_bytes() == orjson.dumps(
        lane_output("npcs", document["records"], document_id="doc-1", digest=case.digest)
    ) + b"\n"


@pytest.mark.parametrize("allowlist", [None, ["npcs", "spells"]])
def test_receipt_counts_lane_payloads_never_the_evidence_artifact(
    tmp_path: Path, allowlist: list[str] | None
) -> None:
    case = small_case(tmp_path / "case", allowlist=allowlist)
    document = receipt(run_bundle(case, tmp_path / "bundle"))
    assert document["normalized_lanes"] == 2
    assert ("evidence-context.json" in document["files"]) == (allowlist is not None)
    assert document["files"] == sorted(bundle_files(tmp_path / "bundle"))


def test_disabled_evidence_makes_the_bundle_of_a_configuration_that_never_mentions_it(
    tmp_path: Path,
) -> None:
    case = small_case(tmp_path / "case")
    base = config_dict(["spells", "npcs"], None)
    base["pipeline"]["chunking"] = {"max_units": 3, "overlap_units": 1}
    variants: dict[str, dict[str, Any]] = {
        "never": base,
        "module": {**base, "output": {"module": "json"}},
        "options": {**base, "output": {"module": "json", "options": {}}},
        "disabled": {
            **base,
            "output": {"module": "json", "options": {"evidence_context": {"enabled": False}}},
        },
    }
    bundles = {}
    for name, config in variants.items():
        case.config = write_config(tmp_path / f"{name}.yaml", config)
        out = tmp_path / f"bundle-{name}"
        assert receipt(run_bundle(case, out))["normalized_lanes"] == 2
        bundles[name] = bundle_files(out)
    assert bundles["disabled"] == bundles["never"]
    assert bundles["options"] == bundles["never"]
    assert bundles["module"] == bundles["never"]
    assert sorted(bundles["never"]) == [
        "chunk-map.json",
        "index.json",
        "lanes/npcs.json",
        "lanes/spells.json",
    ]
    assert b"evidence" not in bundles["never"]["index.json"]


def test_lane_filtering_keeps_the_allowlist_and_drops_filtered_lanes(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case", allowlist=["npcs", "spells"], window=1)
    out = tmp_path / "bundle"
    run = run_bundle(case, out, "--lane", "spells")
    assert receipt(run) == {
        "status": "ok",
        "document_id": "doc-1",
        "normalized_lanes": 1,
        "files": ["chunk-map.json", "evidence-context.json", "index.json", "lanes/spells.json"],
    }
    assert run.stderr == ""  # a filtered lane is not a lane without output
    index = orjson.loads((out / "index.json").read_bytes())
    assert [lane["lane_id"] for lane in index["lanes"]] == ["spells"]
    evidence = orjson.loads((out / "evidence-context.json").read_bytes())
    assert evidence["lanes"] == ["npcs", "spells"]
    assert [
        (context["start_unit_id"], context["end_unit_id"], context["references"])
        for context in evidence["contexts"]
    ] == [("u1", "u3", [{"source_ref": ref("u2"), "lane_ids": ["spells"]}])]


def test_unknown_lane_is_a_usage_error_before_input_is_read(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case")
    case.source.unlink()
    run = run_bundle(case, tmp_path / "bundle", "--lane", "wizards")
    assert run.status == 2
    assert "--lane 'wizards' is not a configured lane" in run.stderr
    assert not (tmp_path / "bundle").exists()


def test_lanes_without_output_are_absent_and_named_in_one_warning(tmp_path: Path) -> None:
    config = config_dict(["npcs", "spells", "combat-turns"], ["spells", "npcs"])
    case = write_case(tmp_path / "case", units(IDS), {"spells": [spell("s1", ref("u2"))]})
    case.config = write_config(tmp_path / "three.yaml", config)
    out = tmp_path / "bundle"
    run = run_bundle(case, out)
    assert run.stderr.splitlines() == [
        "streamer: warning: lanes without a normalized output, absent from the bundle: "
        "npcs, combat-turns"
    ]
    assert receipt(run)["files"] == [
        "chunk-map.json",
        "evidence-context.json",
        "index.json",
        "lanes/spells.json",
    ]
    index = orjson.loads((out / "index.json").read_bytes())
    assert [lane["lane_id"] for lane in index["lanes"]] == ["spells"]


def test_empty_citations_still_publish_the_evidence_artifact(tmp_path: Path) -> None:
    case = write_case(tmp_path / "case", units(IDS), {"spells": []})
    out = tmp_path / "bundle"
    assert receipt(run_bundle(case, out))["normalized_lanes"] == 1
    evidence = orjson.loads((out / "evidence-context.json").read_bytes())
    assert evidence["contexts"] == []
    assert "evidence_context" in orjson.loads((out / "index.json").read_bytes())


def test_bundle_evidence_is_the_evidence_command_output(tmp_path: Path) -> None:
    demo = demo_case()
    out = tmp_path / "bundle"
    receipt(run_bundle(demo, out))
    evidence = invoke(demo.args())
    assert evidence.status == 0, evidence.stderr
    assert (out / "evidence-context.json").read_bytes() == evidence.stdout


def test_demo_bundle(tmp_path: Path) -> None:
    run = run_bundle(demo_case(), tmp_path / "bundle")
    document = receipt(run)
    assert document["document_id"] == "demo-slayers-take"
    assert document["normalized_lanes"] == 6
    assert len(document["files"]) == 9
    chunk_map = orjson.loads((tmp_path / "bundle" / "chunk-map.json").read_bytes())
    assert chunk_map["chunking"] == {"max_units": 10, "overlap_units": 2}
    assert [
        (c["start_unit_id"], c["end_unit_id"], c["unit_count"]) for c in chunk_map["chunks"]
    ] == [
        ("t0100", "t0099b", 10),
        ("t0099a", "t0117", 10),
        ("t0116", "t0124", 9),
    ]


@pytest.mark.parametrize(
    ("count", "chunking"),
    [(0, None), (1, None), (100, None), (101, None), (250, None), (37, (5, 2)), (40, (4, 0))],
)
def test_chunk_map_agrees_with_the_chunker_reading_stdin_once(
    tmp_path: Path, count: int, chunking: tuple[int, int] | None
) -> None:
    ids = [f"id-{(i * 7919) % 1000:03d}-{i}" for i in range(count)]  # opaque, not sorted
    config = config_dict(["spells"], ["spells"], 2)
    if chunking is not None:
        config["pipeline"]["chunking"] = {"max_units": chunking[0], "overlap_units": chunking[1]}
    lanes = {"spells": [spell("s1", ref(ids[count // 2]))] if ids else []}
    case = write_case(tmp_path / "case", units(ids), lanes, config=config, form="json")
    out = tmp_path / "bundle"
    receipt(run_bundle(case, out, stdin=case.source.read_bytes()))
    expected = chunk_map_entries(ids, *(chunking or (100, 10)))
    chunk_map = orjson.loads((out / "chunk-map.json").read_bytes())
    assert chunk_map["chunks"] == expected
    assert chunk_map["chunking"] == dict(
        zip(("max_units", "overlap_units"), chunking or (100, 10), strict=True)
    )


def test_api_bundle_reads_an_open_stream(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case", allowlist=["spells"])
    stream = io.BytesIO(json_bytes("doc-1", units(IDS)))
    result = api.bundle(api.load_config(case.config), stream, case.lanes_dir, tmp_path / "b")
    assert result.receipt()["files"] == sorted(bundle_files(tmp_path / "b"))
    assert (result.document_id, result.semantic_digest, result.normalized_lanes) == (
        "doc-1",
        case.digest,
        2,
    )


# -- failures publish nothing ----------------------------------------------------------


def assert_nothing_published(parent: Path, *expected: str) -> None:
    """``parent`` holds exactly ``expected``: no bundle, no temporary folder."""
    assert sorted(path.name for path in parent.iterdir()) == sorted(expected)


def test_reference_to_a_missing_unit_publishes_nothing(tmp_path: Path) -> None:
    case = write_case(
        tmp_path / "case", units(IDS), {"spells": [spell("s1", ref("u2")), spell("s2", ref("u9"))]}
    )
    parent = tmp_path / "out"
    parent.mkdir()
    run = run_bundle(case, parent / "bundle")
    assert run.status == 3
    assert run.stdout == b""
    assert run.stderr.splitlines() == [
        'streamer: error: lane spells: $.records[1] reference 0: unit ID "u9" is not in the '
        "source document"
    ]
    assert_nothing_published(parent)


def test_lane_from_another_document_fails_even_when_not_allowlisted(tmp_path: Path) -> None:
    case = write_case(tmp_path / "case", units(IDS), {"spells": [spell("s1", ref("u2"))]})
    other = lane_output("scene-descriptions", [scene("c1", ref("u1"))], document_id="x", digest="y")
    (case.lanes_dir / "scene-descriptions.json").write_bytes(orjson.dumps(other))
    case.config = write_config(
        tmp_path / "c.yaml", config_dict(["spells", "scene-descriptions"], ["spells"])
    )
    parent = tmp_path / "out"
    parent.mkdir()
    run = run_bundle(case, parent / "bundle")
    assert run.status == 3
    assert "lane scene-descriptions: $.source.document_id names another document" in run.stderr
    assert_nothing_published(parent)


def test_invalid_source_publishes_nothing(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case")
    data = jsonl_bytes("doc-1", units(IDS))
    parent = tmp_path / "out"
    parent.mkdir()
    run = run_bundle(case, parent / "bundle", stdin=data[:-20] + b"\n")
    assert run.status == 3
    assert_nothing_published(parent)


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
def test_failure_while_assembling_removes_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interruption: type[BaseException]
) -> None:
    case = small_case(tmp_path / "case", allowlist=["spells"])
    parent = tmp_path / "out"
    parent.mkdir()
    receipt(run_bundle(case, parent / "bundle"))
    before = bundle_files(parent / "bundle")

    def fail(*_: object) -> None:
        assert [path.name for path in parent.iterdir() if path.name.endswith(".partial")]
        raise interruption

    monkeypatch.setattr("streamer.output.evidence_context.write_evidence_context", fail)
    config = api.load_config(case.config)
    with pytest.raises(interruption):
        api.bundle(config, case.source, case.lanes_dir, parent / "bundle", force=True)
    assert_nothing_published(parent, "bundle")
    assert bundle_files(parent / "bundle") == before


# -- the destination -------------------------------------------------------------------


def test_existing_output_without_force_is_refused_before_input_is_read(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case")
    out = tmp_path / "bundle"
    receipt(run_bundle(case, out))
    before = bundle_files(out)
    case.source.unlink()
    (case.lanes_dir / "spells.json").unlink()
    run = run_bundle(case, out)
    assert run.status == 2
    assert run.stdout == b""
    assert run.stderr.splitlines() == [
        f"streamer: error: output {out} already exists (hint: use --force to replace it)"
    ]
    assert bundle_files(out) == before


def test_force_replaces_an_existing_bundle(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case", allowlist=["spells"])
    parent = tmp_path / "out"
    parent.mkdir()
    out = parent / "bundle"
    receipt(run_bundle(case, out))
    (out / "stale.json").write_bytes(b"{}")
    case.config = write_config(tmp_path / "plain.yaml", config_dict(["spells"], None))
    run = run_bundle(case, out, "--force")
    assert receipt(run)["files"] == ["chunk-map.json", "index.json", "lanes/spells.json"]
    receipt(run_bundle(case, parent / "fresh"))
    assert bundle_files(out) == bundle_files(parent / "fresh")
    assert_nothing_published(parent, "bundle", "fresh")


def test_force_replaces_an_empty_folder(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case")
    out = tmp_path / "bundle"
    out.mkdir()
    assert run_bundle(case, out).status == 2
    receipt(run_bundle(case, out, "--force"))
    assert (out / "index.json").is_file()


@pytest.mark.parametrize("occupant", ["file", "folder"])
def test_force_never_replaces_what_is_not_a_bundle(tmp_path: Path, occupant: str) -> None:
    case = small_case(tmp_path / "case")
    out = tmp_path / "bundle"
    if occupant == "file":
        out.write_bytes(b"keep me")
    else:
        out.mkdir()
        (out / "notes.txt").write_bytes(b"keep me")
    run = run_bundle(case, out, "--force")
    assert run.status == 2
    assert "it is never replaced" in run.stderr
    assert (out if occupant == "file" else out / "notes.txt").read_bytes() == b"keep me"


@pytest.mark.parametrize("output", ["-", "missing-parent/bundle"])
def test_unusable_output_is_a_usage_error(tmp_path: Path, output: str) -> None:
    case = small_case(tmp_path / "case")
    run = invoke(
        [
            "bundle",
            "--config",
            str(case.config),
            "--source",
            str(case.source),
            "--lanes-dir",
            str(case.lanes_dir),
            "--output",
            output,
        ],
        cwd=tmp_path,
    )
    assert run.status == 2, run.stderr
    assert run.stdout == b""


def test_files_and_folders_get_the_umasks_permissions(tmp_path: Path) -> None:
    case = small_case(tmp_path / "case", allowlist=["spells"])
    out = tmp_path / "bundle"
    old_umask = os.umask(0o022)
    try:
        receipt(run_bundle(case, out))
    finally:
        os.umask(old_umask)
    modes = {
        path.relative_to(tmp_path).as_posix(): stat.S_IMODE(path.stat().st_mode)
        for path in [out, *sorted(out.rglob("*"))]
    }
    assert modes == {  # as cp and mkdir give them: a bundle served or shared is readable
        "bundle": 0o755,
        "bundle/chunk-map.json": 0o644,
        "bundle/evidence-context.json": 0o644,
        "bundle/index.json": 0o644,
        "bundle/lanes": 0o755,
        "bundle/lanes/npcs.json": 0o644,
        "bundle/lanes/spells.json": 0o644,
    }


def test_turn_records_and_non_monotonic_ids(tmp_path: Path) -> None:
    ids = ["b", "a", "c", "z9", "z10"]
    case = write_case(
        tmp_path / "case",
        units(ids),
        {"combat-turns": [turn("t1", ref("z9", "z10")), turn("t2", ref("a"))]},
        window=1,
    )
    out = tmp_path / "bundle"
    receipt(run_bundle(case, out))
    evidence = orjson.loads((out / "evidence-context.json").read_bytes())
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in evidence["contexts"]] == [("b", "z10")]
    assert [u["unit_id"] for u in evidence["contexts"][0]["units"]] == ids

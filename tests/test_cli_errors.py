"""Bad input: a clear one-line error, the documented exit status, nothing published, and
never a byte of transcript text, speakers or record values in any message."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.run_support import in_folder
from tests.support import REPO, Case, invoke, jsonl_bytes, ref, spell, unit, write_case

MARKER = "ZQX-SECRET-7f3a"
UNITS = [
    unit("a1", f"The {MARKER} sword gleams", speaker=f"{MARKER}-GM", start_ms=0, end_ms=10),
    unit("b2", f"{MARKER} whispers", speaker="SAM"),
    unit("c3", "ordinary line"),
    unit("d4", f"last {MARKER}"),
]


def void(_: object) -> None:
    """A case step that writes a file, its result (the byte count) dropped."""


def base_case(root: Path) -> Case:
    record = {**spell("c1", ref("b2", "c3")), "caster": f"{MARKER}-caster", "spell": MARKER}
    return write_case(root, UNITS, {"spells": [record]}, window=1)


def replace_source(text: Callable[[bytes], bytes]) -> Callable[[Case], None]:
    def mutate(case: Case) -> None:
        case.source.write_bytes(text(case.source.read_bytes()))

    return mutate


def replace_lane(change: Callable[[dict[str, Any]], None]) -> Callable[[Case], None]:
    def mutate(case: Case) -> None:
        path = case.lanes_dir / "spells.json"
        payload = orjson.loads(path.read_bytes())
        change(payload)
        path.write_bytes(orjson.dumps(payload))

    return mutate


def set_units(new_units: list[dict[str, Any]], keep_digest: bool = False) -> Callable[[Case], None]:
    def mutate(case: Case) -> None:
        document = jsonl_bytes("doc-1", new_units)
        if keep_digest:
            header = case.source.read_bytes().split(b"\n", 1)[0]
            document = header + b"\n" + document.split(b"\n", 1)[1]
        case.source.write_bytes(document)

    return mutate


def set_record(**values: Any) -> Callable[[Case], None]:
    return replace_lane(lambda payload: payload["records"][0].update(values))


CASES: dict[str, tuple[Callable[[Case], None], int, str]] = {
    "malformed JSON": (
        replace_source(lambda b: b.replace(b'"b2","kind"', b'"b2" "kind"')),
        3,
        "line 3: not valid JSON",
    ),
    "truncated JSON": (
        replace_source(lambda b: b[: b.rindex(MARKER.encode()) + 3]),
        3,
        "line 5: not valid JSON",
    ),
    "wrong type": (
        replace_source(lambda b: b.replace(b'"speaker":"SAM"', b'"speaker":["SAM"]')),
        3,
        "line 3.metadata.speaker must be a string",
    ),
    "unknown member": (
        replace_source(
            lambda b: b.replace(
                b'"kind":"utterance","text":"ordinary',
                b'"kind":"utterance","secret":"' + MARKER.encode() + b'","text":"ordinary',
            )
        ),
        3,
        'line 4: unknown member "secret"',
    ),
    "unknown metadata member": (
        replace_source(
            lambda b: b.replace(
                b'"speaker":"SAM"', b'"speaker":"SAM","path":"/home/' + MARKER.encode() + b'"'
            )
        ),
        3,
        'line 3.metadata: unknown member "path"',
    ),
    "digest mismatch": (
        set_units([*UNITS[:3], unit("d4", f"changed {MARKER}")], keep_digest=True),
        3,
        "semantic_digest does not match the units",
    ),
    "duplicate referenced unit ID": (
        set_units([*UNITS, unit("b2", MARKER)]),
        3,
        'unit ID "b2" appears twice (at positions 1 and 4) and is referenced',
    ),
    "duplicate published unit ID": (
        set_units([unit("a1", MARKER), unit("b2"), unit("c3"), unit("a1", MARKER)]),
        3,
        'unit ID "a1" appears twice among the published units',
    ),
    "reference to a missing unit": (
        set_record(source_refs=[ref("b2", "zz9")]),
        3,
        'lane spells: $.records[0] reference 0: unit ID "zz9" is not in the source document',
    ),
    "reversed reference": (
        set_record(source_refs=[ref("c3", "a1")]),
        3,
        'lane spells: $.records[0] reference 0: reversed source reference: "c3" comes after "a1"',
    ),
    "lane output for another document": (
        replace_lane(lambda p: p["source"].update(document_id="other")),
        3,
        "lane spells: $.source.document_id names another document",
    ),
    "lane output for another version": (
        replace_lane(lambda p: p["source"].update(semantic_digest="sha256:" + "0" * 64)),
        3,
        "lane spells: $.source.semantic_digest does not match the source document",
    ),
    "bad record value": (
        set_record(caster=7),
        3,
        "lane spells (spells.json): $.records[0].caster must be a non-empty string",
    ),
    "unknown record member": (
        set_record(note=MARKER),
        3,
        'lane spells (spells.json): $.records[0]: unknown member "note"',
    ),
    "empty source_refs": (
        set_record(source_refs=[]),
        3,
        "$.records[0].source_refs must be a non-empty list of source references",
    ),
    "malformed lane output": (
        lambda case: void((case.lanes_dir / "spells.json").write_bytes(MARKER.encode())),
        3,
        "lane spells (spells.json): not valid JSON",
    ),
    "lane output of another kind": (
        replace_lane(lambda p: p.update(artifact_kind="dnd/npcs")),
        3,
        "$.artifact_kind is not the configured kind dnd/spell-casts",
    ),
    "missing source file": (
        lambda case: case.source.unlink(),
        2,
        "/case/source.jsonl does not exist",  # named with its whole path
    ),
    "bad YAML": (
        lambda case: void(case.config.write_text("pipeline: [\n")),
        2,
        "configuration is not valid YAML",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_content_safe_line_with_the_status_and_no_output(
    tmp_path: Path, name: str
) -> None:
    mutate, status, message = CASES[name]
    case = base_case(tmp_path / "case")
    mutate(case)
    target = tmp_path / "out" / "evidence.json"
    target.parent.mkdir()
    run = invoke(case.args("--output", str(target)))
    assert run.status == status, run.stderr
    assert run.stdout == b""
    assert run.stderr.startswith("streamer: error: ")
    assert message in run.stderr
    assert run.stderr.count("\n") == 1
    assert MARKER not in run.stderr
    assert "Traceback" not in run.stderr
    assert list(target.parent.iterdir()) == []


def test_a_valid_run_publishes_the_marker_only_in_the_output(tmp_path: Path) -> None:
    case = base_case(tmp_path)
    run = invoke(case.args())
    assert run.status == 0
    assert run.stderr == ""
    assert MARKER.encode() in run.stdout


def test_output_to_a_file_has_the_umasks_mode_and_stdout_stays_empty(tmp_path: Path) -> None:
    case = base_case(tmp_path)
    target = tmp_path / "evidence.json"
    old_umask = os.umask(0o027)
    try:
        run = invoke(case.args("--output", str(target)))
    finally:
        os.umask(old_umask)
    assert (run.status, run.stdout, run.stderr) == (0, b"", "")
    assert target.stat().st_mode & 0o777 == 0o640
    assert target.read_bytes() == invoke(case.args()).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evidence"], "Missing option '--config'"),
        (["evidence", "--config"], "Option '--config' requires an argument"),
        (["nope"], "No such command 'nope'"),
        ([], "Missing command"),
        (["evidence", "--bogus"], "No such option '--bogus'"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(args: list[str], message: str) -> None:
    run = invoke(args)
    assert run.status == 2
    assert run.stderr.startswith("streamer: error: ")
    assert message in run.stderr
    assert run.stderr.count("\n") == 1


def test_unknown_lane_filter_is_a_usage_error(tmp_path: Path) -> None:
    case = base_case(tmp_path)
    run = invoke(case.args("--lane", "ghosts"))
    assert run.status == 2
    assert run.stderr.startswith("streamer: error: --lane 'ghosts' is not a configured lane")


def test_missing_output_folder_fails_before_reading(tmp_path: Path) -> None:
    case = base_case(tmp_path)
    given = tmp_path / "missing" / "e.json"
    run = invoke(case.args("--output", str(given)))
    assert run.status == 2
    assert run.stderr == (
        f"streamer: error: the folder {given.parent} of --output {given} does not exist "
        f"(hint: create it first: mkdir -p {given.parent})\n"
    )


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    many = [unit(f"u{i}", "x" * 2000) for i in range(3000)]
    case = write_case(tmp_path, many, {"spells": [spell("c1", ref("u0", "u2999"))]}, window=0)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *case.args()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10) == b'{"artifact'
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait() == 141
    assert stderr == b""


def test_debug_adds_a_traceback_and_is_accepted_anywhere(tmp_path: Path) -> None:
    case = base_case(tmp_path)
    case.source.unlink()
    quiet = invoke(case.args())
    assert "Traceback" not in quiet.stderr
    for args in (["--debug", *case.args()], [*case.args(), "--debug"]):
        run = invoke(args)
        assert run.status == 2
        assert run.stderr.startswith("Traceback (most recent call last):")
        assert run.stderr.splitlines()[-1] == quiet.stderr.rstrip("\n")


def test_the_helps_example_works_as_typed_in_an_empty_folder(tmp_path: Path) -> None:
    shutil.copy(REPO / "fixtures" / "quickstart" / "session.vtt", tmp_path / "session.vtt")
    run = invoke(["run", "session.vtt", "--output", "out/session", "--quiet"], cwd=tmp_path)
    assert (run.status, run.stderr) == (0, "")
    assert sorted(os.listdir(tmp_path / "out")) == ["session", "session.html", "session.work"]


def test_a_run_that_publishes_nothing_takes_back_the_folders_it_made(tmp_path: Path) -> None:
    (tmp_path / "bridge.vtt").write_text("not a caption file\n")
    (tmp_path / "kept").mkdir()
    run = invoke(["run", "bridge.vtt", "--output", "kept/my sessions/s1/out"], cwd=tmp_path)
    assert run.status == 3  # bad input
    assert run.stderr.startswith("streamer: error: webvtt bridge.vtt: line 1: ")
    assert sorted(os.listdir(tmp_path)) == ["bridge.vtt", "kept"]
    assert os.listdir(tmp_path / "kept") == []


def test_an_output_under_a_file_is_named_as_given(tmp_path: Path) -> None:
    in_folder(tmp_path, "bridge.vtt")
    run = invoke(["run", "bridge.vtt", "--output", "bridge.vtt/s1"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: bridge.vtt in --output bridge.vtt/s1 is not a folder "
        "(hint: choose another --output)\n",
    )
    assert sorted(os.listdir(tmp_path)) == ["bridge.vtt"]


def test_a_missing_transcript_is_named_with_its_whole_path(tmp_path: Path) -> None:
    run = invoke(["run", "sessions/s1/missing.vtt", "--output", "o"], cwd=tmp_path)
    assert run.stderr == (
        "streamer: error: transcript sessions/s1/missing.vtt does not exist or is not a file "
        "(hint: check TRANSCRIPT)\n"
    )


def test_report_errors_name_the_campaign_folder_as_given(tmp_path: Path) -> None:
    empty = tmp_path / "no summary"
    empty.mkdir()
    run = invoke(["report", "--campaign", str(empty)])
    assert run.status == 2, run.stderr
    assert run.stderr.startswith(f"streamer: error: --campaign '{empty}': no batch.jsonl in it")


def test_a_folder_given_as_a_transcript_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    run = invoke(["run", "data", "--output", "out"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: transcript data is a folder, not a transcript file (hint: give one "
        "transcript file; for a folder of sessions, list them in a manifest for streamer "
        "batch)\n",
    )


@pytest.mark.parametrize("name", ["s.vtt", "s.srt", "s.txt", "s.json"])
def test_an_empty_transcript_is_said_empty_in_every_format(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    run = invoke(["run", name, "--output", "out"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        3,
        f"streamer: error: transcript {name} is empty (0 bytes) (hint: check the file)\n",
    )
    imported = invoke(["import", "webvtt", name], cwd=tmp_path)
    assert imported.stderr == (
        f"streamer: error: input file {name} is empty (0 bytes) (hint: check the file)\n"
    )
    assert sorted(os.listdir(tmp_path)) == [name]


@pytest.mark.parametrize(("alias", "name"), [("vtt", "webvtt"), ("txt", "text")])
def test_a_formats_unambiguous_alias_is_taken(tmp_path: Path, alias: str, name: str) -> None:
    shutil.copy(REPO / "fixtures" / "quickstart" / "session.vtt", tmp_path / "s.vtt")
    run = invoke(["run", "s.vtt", "--format", alias, "--output", "out", "--json"], cwd=tmp_path)
    if name == "webvtt":
        assert run.status == 0, run.stderr
    else:  # read as text: one unit a line, whatever it holds
        assert run.status == 0, run.stderr
    assert invoke(["import", alias, "s.vtt"], cwd=tmp_path).stdout == (
        invoke(["import", name, "s.vtt"], cwd=tmp_path).stdout
    )


def test_a_report_given_as_a_bundle_folder_is_named_as_a_file(tmp_path: Path) -> None:
    shutil.copy(REPO / "fixtures" / "quickstart" / "session.vtt", tmp_path / "s.vtt")
    assert invoke(["run", "s.vtt", "--output", "out/s", "--json"], cwd=tmp_path).status == 0
    run = invoke(["validate", "out/s.html"], cwd=tmp_path)
    assert (run.status, run.stderr) == (
        2,
        "streamer: error: out/s.html is a file, not a bundle folder (hint: give the bundle "
        "folder, out/s: s.html is its report)\n",
    )

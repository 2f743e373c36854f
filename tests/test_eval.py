"""``streamer eval``: a bundle scored against a reference made from it, and the records
one change to either side makes missing or spurious; the reference's schema checked by a
third-party validator; the table, the JSON, the gate, a campaign, the errors. The CLI runs
in-process (typer's ``CliRunner``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from streamer import api
from streamer.cli.app import app
from streamer.cli.main import load_commands
from streamer.framework.errors.types import ExitStatus, StreamerError
from tests.support import REPO

DEMO = REPO / "fixtures" / "demo"
LANES = ["combat-turns", "item-events", "npc-interactions", "npcs", "party-roster", "spells"]
LANES_WITH_SCENES = sorted([*LANES, "scene-descriptions"])


def streamer(*args: str) -> tuple[int, str, str]:
    """Run ``streamer ARGS`` in-process: (exit status, stdout, the error lines)."""
    load_commands(["eval", "schema"])
    result: Result = CliRunner().invoke(app, list(args))
    error = result.exception
    if isinstance(error, StreamerError):
        return error.exit_status, result.stdout, f"streamer: error: {error.one_line()}"
    lines = getattr(error, "lines", None)
    if lines is not None:
        status = error.status  # type: ignore[union-attr]
        return status, result.stdout, "\n".join(f"streamer: error: {line}" for line in lines)
    assert error is None or isinstance(error, SystemExit), error
    return result.exit_code, result.stdout, ""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo session's bundle, every kind in it (the party roster from the glossary),
    and its source document beside it as streamer run keeps it."""
    root = tmp_path_factory.mktemp("demo")
    data = yaml.safe_load((DEMO / "streamer.yaml").read_text())
    data["pipeline"]["lanes"].append({"id": "party-roster", "artifact_kind": "dnd/party-roster"})
    (root / "streamer.yaml").write_text(yaml.safe_dump(data))
    config = api.load_config(root / "streamer.yaml")
    source = DEMO / "session.jsonl"
    glossary = DEMO / "campaign.yaml"
    api.normalize(
        config, source, DEMO / "candidates", root / "lanes", glossary=glossary, warn=lambda _: None
    )
    (root / "out").mkdir()
    api.bundle(config, source, root / "lanes", root / "out" / "session")
    (root / "out" / "session.work").mkdir()
    shutil.copy(source, root / "out" / "session.work" / "source.jsonl")
    api.reference_from(root / "out" / "session", root / "reference.json")
    return root


def reference(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "reference.json").read_text())
    return data


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def lane(result: dict[str, Any], lane_id: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [item for item in result["lanes"] if item["lane_id"] == lane_id]
    assert len(found) == 1
    return found[0]


def test_a_bundle_against_its_own_records_scores_one_in_every_lane(demo: Path) -> None:
    result = api.evaluate(demo / "out" / "session", demo / "reference.json")
    assert sorted(score.lane_id for score in result.lanes) == LANES_WITH_SCENES
    for score in result.lanes:
        counts = score.counts
        assert counts.expected == counts.published == counts.matched > 0, score.lane_id
        assert (counts.precision, counts.recall, counts.f1, counts.overlap) == (1, 1, 1, 1)
        assert (score.missing, score.spurious) == ([], [])


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_one_record_taken_out_or_added_is_exactly_the_record_reported(
    demo: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    document = reference(demo)
    position = data.draw(st.integers(0, len(document["lanes"]) - 1), label="lane")
    records = document["lanes"][position]["records"]
    index = data.draw(st.integers(0, len(records) - 1), label="record")
    removed = records.pop(index)
    folder = tmp_path_factory.mktemp("changed")
    result = api.evaluate(demo / "out" / "session", write(folder / "r.json", document)).to_json()
    changed = result["lanes"][position]["records"]
    assert [item["record"] for item in changed["spurious"]] == [index]
    assert changed["missing"] == []
    assert len(changed["matched"]) == len(records)
    # the same record given twice: its second copy is missing, nothing else
    records.insert(index, removed)
    records.append(removed)
    result = api.evaluate(demo / "out" / "session", write(folder / "r.json", document)).to_json()
    changed = result["lanes"][position]["records"]
    assert [item["reference"] for item in changed["missing"]] == [len(records) - 1]
    assert changed["spurious"] == []


def test_an_optional_record_is_neither_missing_nor_wrong(demo: Path, tmp_path: Path) -> None:
    document = reference(demo)
    (spells,) = [item for item in document["lanes"] if item["lane_id"] == "spells"]
    spells["records"][0]["optional"] = True
    spells["records"].append({**spells["records"][1], "optional": True})
    result = api.evaluate(demo / "out" / "session", write(tmp_path / "r.json", document))
    (score,) = [item for item in result.lanes if item.lane_id == "spells"]
    records = len(spells["records"]) - 2
    assert (score.counts.expected, score.counts.published, score.counts.matched) == (
        records,
        records,
        records,
    )
    assert (score.missing, score.spurious) == ([], [])


def test_identity_is_the_kinds_canonical_one_and_evidence_within_the_tolerance(
    demo: Path, tmp_path: Path
) -> None:
    """An alias of the glossary and another spelling of a catalog spell are the same
    record; a caster left null is compatible; evidence 2 units away matches at a
    tolerance of 2, not of 1, and does not count as overlapping."""
    document = reference(demo)
    (spells,) = [item for item in document["lanes"] if item["lane_id"] == "spells"]
    first = spells["records"][0]
    assert (first["spell"], first["caster"]) == ("Hunter's Mark", "Vex'ahlia")
    assert first["source_refs"] == [{"start_unit_id": "t0111", "end_unit_id": "t0111"}]
    spells["records"][0] = {
        "spell": "hunters mark",
        "caster": "Vex",
        "source_refs": [{"start_unit_id": "t0113", "end_unit_id": "t0113"}],
    }
    path = write(tmp_path / "r.json", document)
    glossary = DEMO / "campaign.yaml"
    without = api.evaluate(demo / "out" / "session", path, tolerance=2).to_json()
    assert len(lane(without, "spells")["records"]["missing"]) == 1  # "Vex" is not Vex'ahlia
    near = api.evaluate(demo / "out" / "session", path, tolerance=2, glossary=glossary)
    assert lane(near.to_json(), "spells")["records"]["missing"] == []
    (score,) = [item for item in near.lanes if item.lane_id == "spells"]
    assert score.counts.overlapping == score.counts.matched - 1
    assert lane(near.to_json(), "spells")["records"]["matched"][0]["distance"] == 2
    far = api.evaluate(demo / "out" / "session", path, tolerance=1, glossary=glossary)
    assert len(lane(far.to_json(), "spells")["records"]["missing"]) == 1
    first["caster"] = None
    spells["records"][0] = first
    nameless = api.evaluate(demo / "out" / "session", write(path, document), tolerance=0)
    assert lane(nameless.to_json(), "spells")["records"]["missing"] == []


def test_the_scope_leaves_out_the_records_citing_no_unit_in_it(demo: Path, tmp_path: Path) -> None:
    document = reference(demo)
    document["scope"] = [{"start_unit_id": "t0100", "end_unit_id": "t0111"}]
    for item in document["lanes"]:
        item["records"] = []
    result = api.evaluate(demo / "out" / "session", write(tmp_path / "r.json", document))
    spells = lane(result.to_json(), "spells")
    assert [item["source_refs"][0]["start_unit_id"] for item in spells["records"]["spurious"]] == [
        "t0111"
    ]


def test_the_schema_is_published_and_the_references_are_valid_by_a_third_party_validator(
    demo: Path,
) -> None:
    code, listed, _ = streamer_schema_list()
    assert code == 0 and "notarius.evaluation.reference" in listed.split()
    schema = json.loads(api.schema("notarius_evaluation_reference_v1"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    documents = [reference(demo), *labelled_references()]
    assert len(documents) == 5  # the demo and the four labelled episodes
    for document in documents:
        assert list(validator.iter_errors(document)) == []
    broken = reference(demo)
    broken["lanes"][0]["records"][0]["optional"] = "yes"
    del broken["source"]
    assert sorted(error.validator for error in validator.iter_errors(broken)) == [
        "required",
        "type",
    ]


def streamer_schema_list() -> tuple[int, str, str]:
    return streamer("schema", "--list")


def labelled_references() -> list[dict[str, Any]]:
    paths = sorted((REPO / "tests" / "labelled").glob("*.json"))
    return [json.loads(path.read_text()) for path in paths]


def test_reference_from_writes_the_bundles_records_one_a_line(demo: Path, tmp_path: Path) -> None:
    code, receipt, _ = streamer(
        "eval", "--reference-from", str(demo / "out" / "session"), "--output", str(tmp_path / "r")
    )
    assert code == 0
    assert json.loads(receipt) == {
        "status": "ok",
        "document_id": "demo-slayers-take",
        "lanes": 7,
        "records": sum(len(item["records"]) for item in reference(demo)["lanes"]),
    }
    text = (tmp_path / "r").read_text()
    assert text == (demo / "reference.json").read_text()
    assert '        {"spell": "Hunter\'s Mark", "caster": "Vex\'ahlia", "source_refs": ' in text
    assert "spell_cast_id" not in text


def test_the_table_and_the_json(demo: Path) -> None:
    bundle, ref = str(demo / "out" / "session"), str(demo / "reference.json")
    code, table, _ = streamer("eval", bundle, ref)
    assert code == 0
    lines = table.splitlines()
    assert lines[0].split() == [
        "lane", "expected", "published", "matched", "precision", "recall", "F1", "overlap"
    ]  # fmt: skip
    spells = next(line for line in lines if line.startswith("spells "))
    assert spells.split()[4:] == ["1.00", "1.00", "1.00", "1.00"]
    code, text, _ = streamer("eval", bundle, ref, "--json")
    assert code == 0
    result = json.loads(text)
    published = json.loads((demo / "out" / "session" / "lanes" / "spells.json").read_text())
    assert lane(result, "spells")["records"]["matched"][0] == {
        "record": 0,
        "record_id": published["records"][0]["spell_cast_id"],
        "source_refs": [{"start_unit_id": "t0111", "end_unit_id": "t0111"}],
        "reference": 0,
        "reference_refs": [{"start_unit_id": "t0111", "end_unit_id": "t0111"}],
        "distance": 0,
    }
    # no record value, no transcript text
    assert "Hunter" not in text and "Vex" not in text and "Brenna" not in text


def test_the_floors_gate_the_exit_status(demo: Path, tmp_path: Path) -> None:
    document = reference(demo)
    (spells,) = [item for item in document["lanes"] if item["lane_id"] == "spells"]
    kept = len(spells["records"]) - 1
    spells["records"].pop()
    path = str(write(tmp_path / "r.json", document))
    bundle = str(demo / "out" / "session")
    precision = kept / (kept + 1)
    assert streamer("eval", bundle, path, "--min-recall", "1")[0] == 0
    code, table, errors = streamer("eval", bundle, path, "--min-precision", "0.99")
    assert code == ExitStatus.BELOW_FLOOR
    assert int(ExitStatus.BELOW_FLOOR) == 5
    assert "spells " in table
    assert errors == (
        f"streamer: error: lane spells: precision {precision:.4f} is below --min-precision 0.99"
    )
    floors = ("--min-precision", "0.99", "--min-precision", "spells=0.5")
    assert streamer("eval", bundle, path, *floors)[0] == 0
    assert streamer("eval", bundle, path, "--min-precision", "spells=1")[0] == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--min-recall", "1.5"], '--min-recall "1.5" is not a floor'),
        (["--min-recall", "x=1", "--min-recall", "x=0.5"], "--min-recall gives lane x two floors"),
        (["--min-recall", "nope=1"], "a floor names lane nope, which the reference does not score"),
        (["--tolerance", "-1"], "--tolerance must be a whole number of units, 0 or more"),
        (["--output", "x"], "give a BUNDLE and a REFERENCE (--output goes with --reference-from)"),
    ],
)
def test_usage_errors(demo: Path, args: list[str], message: str) -> None:
    code, out, error = streamer(
        "eval", str(demo / "out" / "session"), str(demo / "reference.json"), *args
    )
    assert (code, out) == (ExitStatus.USAGE, "")
    assert error.startswith(f"streamer: error: {message}")


def test_errors_name_the_path_never_a_value(demo: Path, tmp_path: Path) -> None:
    bundle = str(demo / "out" / "session")
    document = reference(demo)
    document["lanes"][-1]["records"][0]["spell"] = ""
    code, _, error = streamer("eval", bundle, str(write(tmp_path / "bad.json", document)))
    assert code == ExitStatus.INVALID_INPUT
    assert error.startswith(
        f"streamer: error: reference {tmp_path}/bad.json: $.lanes[6].records[0].spell"
    )
    document = reference(demo)
    document["lanes"][-1]["records"][0]["source_refs"][0]["end_unit_id"] = "t9999"
    code, _, error = streamer("eval", bundle, str(write(tmp_path / "bad.json", document)))
    assert (code, error.split(" (hint")[0]) == (
        ExitStatus.INVALID_INPUT,
        f"streamer: error: reference {tmp_path}/bad.json: $.lanes[6].records[0] cites unit "
        '"t9999", which the source does not hold',
    )
    document = reference(demo)
    document["source"]["semantic_digest"] = "sha256:" + "0" * 64
    code, _, error = streamer("eval", bundle, str(write(tmp_path / "bad.json", document)))
    assert code == ExitStatus.INVALID_INPUT and "another semantic digest" in error
    code, _, error = streamer("eval", bundle, str(tmp_path / "none.json"))
    assert (code, error) == (
        ExitStatus.USAGE,
        f"streamer: error: reference {tmp_path}/none.json does not exist",
    )
    shutil.copytree(demo / "out" / "session", tmp_path / "alone")
    code, _, error = streamer("eval", str(tmp_path / "alone"), str(demo / "reference.json"))
    assert code == ExitStatus.USAGE
    assert error.startswith(f"streamer: error: bundle {tmp_path}/alone: no source document")
    code, _, _ = streamer(
        "eval",
        str(tmp_path / "alone"),
        str(demo / "reference.json"),
        "--source",
        str(DEMO / "session.jsonl"),
    )
    assert code == 0


def test_a_campaign_scores_each_labelled_session_and_totals_them(
    demo: Path, tmp_path: Path
) -> None:
    """A published session, a referenced session that failed (all missing), a session
    without a reference (unlabelled)."""
    out = tmp_path / "out"
    shutil.copytree(demo / "out", out)
    lines = [
        {"row": 2, "document_id": "demo-slayers-take", "status": "ok"},
        {"row": 3, "document_id": "gone", "status": "failed"},
        {"row": 4, "document_id": "other", "status": "ok"},
    ]
    (out / "batch.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (out / "session").rename(out / "demo-slayers-take")
    (out / "session.work").rename(out / "demo-slayers-take.work")
    references = tmp_path / "references"
    references.mkdir()
    shutil.copy(demo / "reference.json", references / "a.json")
    gone = reference(demo)
    gone["source"]["document_id"] = "gone"
    write(references / "b.json", gone)
    code, text, _ = streamer("eval", str(out), str(references), "--json")
    assert code == 0
    result = json.loads(text)
    assert [(s["document_id"], s["status"]) for s in result["sessions"]] == [
        ("demo-slayers-take", "ok"),
        ("gone", "failed"),
    ]
    assert result["unlabelled"] == ["other"]
    spells = lane({"lanes": result["totals"]}, "spells")
    records = len(lane(reference(demo), "spells")["records"])
    assert (spells["expected"], spells["published"], spells["matched"]) == (
        2 * records,
        records,
        records,
    )
    assert (spells["precision"], spells["recall"]) == (1.0, 0.5)
    code, table, error = streamer("eval", str(out), str(references), "--min-recall", "spells=0.6")
    assert code == 5 and "(total)" in table
    assert error == "streamer: error: lane spells: recall 0.5000 is below --min-recall 0.6"


@pytest.mark.parametrize(
    ("entry", "matched"),
    [
        ({"player": "LAURA", "character": "Vex'ahlia"}, True),
        ({"player": "laura ", "character": "Vex"}, True),  # by name key, then through names
        ({"player": "LAURA", "character": "Vex'ahlia", "sessions": ["demo-slayers-take"]}, True),
        ({"player": "LAURA", "character": "Vex'ahlia", "sessions": ["another"]}, False),
        ({"player": "LIAM", "character": "Vex'ahlia"}, False),
    ],
)
def test_a_caster_named_by_the_player_is_the_character_the_party_says(
    demo: Path, tmp_path: Path, entry: dict[str, Any], matched: bool
) -> None:
    """A run without a glossary names a first-person cast's caster by the speaker label
    (``LAURA``); the glossary given to eval compares it as the character the party says
    that player plays in the bundle's session, never in another."""
    document = reference(demo)
    (spells,) = [item for item in document["lanes"] if item["lane_id"] == "spells"]
    assert spells["records"][0]["caster"] == "Vex'ahlia"
    spells["records"][0]["caster"] = "LAURA"
    path = write(tmp_path / "r.json", document)
    glossary = yaml.safe_load((DEMO / "campaign.yaml").read_text())
    glossary["party"] = [entry]
    glossary_path = tmp_path / "glossary.yaml"
    glossary_path.write_text(yaml.safe_dump(glossary), encoding="utf-8")
    result = api.evaluate(demo / "out" / "session", path, glossary=glossary_path).to_json()
    missing = lane(result, "spells")["records"]["missing"]
    assert [item["reference"] for item in missing] == ([] if matched else [0])
    without = api.evaluate(demo / "out" / "session", path).to_json()
    assert [item["reference"] for item in lane(without, "spells")["records"]["missing"]] == [0]

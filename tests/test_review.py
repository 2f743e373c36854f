"""The game master's review: its schema, ``streamer review`` in process, and stale IDs."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from jsonschema import Draft202012Validator

from streamer import api
from streamer.api.reviews import load_review, review
from streamer.framework.errors.types import InputError
from streamer.output.schema_catalog import load_schema
from streamer.validation.review import Mark, Review, review_bytes, review_path
from tests.report_support import demo_bundle
from tests.support import invoke

DIGEST = "sha256:5b92514bd76392fec3a98285ece31a5ef658ebee5f8b1f826ba5cd4dbf1c2ab6"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return demo_bundle(tmp_path / "session")


def test_the_review_is_written_beside_the_bundle_canonically(bundle: Path) -> None:
    note = "a misheard name: ünïcode \u2028 and \x01"
    result = invoke(
        [
            "review",
            str(bundle),
            "--reject",
            "spell-2",
            "--accept",
            "turn-1",
            "--note",
            "spell-2",
            note,
        ]
    )
    assert (result.status, result.stderr) == (0, "")
    path = bundle.parent / "session.review.json"
    assert orjson.loads(result.stdout) == {
        "status": "reviewed",
        "review": str(path),
        "accepted": 1,
        "rejected": 1,
        "stale": [],
    }
    expected = {
        "artifact_kind": "review/records",
        "schema": {"id": "notarius.review", "name": "notarius_review_v1", "version": "v1"},
        "bundle": {"document_id": "demo-slayers-take", "semantic_digest": DIGEST},
        "records": {
            "spell-2": {"verdict": "rejected", "note": note},
            "turn-1": {"verdict": "accepted"},
        },
    }
    written = path.read_bytes()
    assert written == (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").encode()
    Draft202012Validator(load_schema("notarius.review")).validate(json.loads(written))
    # a second run keeps the marks and the note, and changes a verdict
    again = invoke(["review", str(bundle), "--accept", "spell-2"])
    assert again.status == 0
    loaded = load_review(bundle)
    assert loaded is not None
    assert loaded.marks == {"spell-2": Mark("accepted", note), "turn-1": Mark("accepted")}
    assert (loaded.accepted("turn-1"), loaded.rejected("spell-2"), loaded.unreviewed("turn-2")) == (
        True,
        False,
        True,
    )


def test_the_review_schema_is_listed_and_printed() -> None:
    listed = invoke(["schema", "--list"])
    assert "notarius.review" in listed.stdout.decode().splitlines()
    printed = invoke(["schema", "notarius.review"])
    assert json.loads(printed.stdout)["$id"] == "notarius.review"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--accept", "spell-9"],
            'streamer: error: --accept "spell-9": no record of bundle {b} has this ID',
        ),
        (
            ["--accept", "spell-1", "--reject", "spell-1"],
            'streamer: error: --accept and --reject both name "spell-1"',
        ),
        (
            ["--note", "spell-1", "secret words"],
            'streamer: error: --note "spell-1": the record is neither accepted nor rejected',
        ),
    ],
)
def test_bad_marks_are_refused_in_one_line_without_the_note(
    bundle: Path, args: list[str], line: str
) -> None:
    result = invoke(["review", str(bundle), *args])
    assert result.status == 2
    assert result.stderr.splitlines()[0].partition(" (hint: ")[0] == line.format(b=bundle)
    assert "secret words" not in result.stderr
    assert not review_path(bundle).exists()


def test_a_review_of_another_bundle_is_refused(bundle: Path) -> None:
    other = Review("another-session", DIGEST, {"spell-1": Mark("rejected", "secret words")})
    review_path(bundle).write_bytes(review_bytes(other))
    with pytest.raises(InputError) as raised:
        load_review(bundle)
    assert str(raised.value) == (
        f"review {review_path(bundle)} reviews another bundle than {bundle} "
        "(its document ID or semantic digest differs)"
    )
    result = invoke(["review", str(bundle), "--accept", "spell-1"])
    assert result.status == 3
    assert "secret words" not in result.stderr


def test_an_invalid_review_is_refused_naming_the_path_not_the_note(bundle: Path) -> None:
    document = orjson.loads(review_bytes(Review("demo-slayers-take", DIGEST)))
    document["records"]["spell-1"] = {"verdict": "maybe", "note": "secret words"}
    review_path(bundle).write_bytes(orjson.dumps(document))
    result = invoke(["review", str(bundle), "--accept", "spell-2"])
    assert result.status == 3
    assert result.stderr.splitlines()[0].partition(" (hint: ")[0] == (
        f"streamer: error: review {review_path(bundle)} is not valid (1 problem): "
        "$.records['spell-1'].verdict breaks the schema rule 'enum' (notarius.review)"
    )


def test_a_mark_of_a_record_gone_after_a_rerun_is_kept_and_reported(bundle: Path) -> None:
    gone = Review("demo-slayers-take", DIGEST, {"spell-77": Mark("rejected", "old")})
    review_path(bundle).write_bytes(review_bytes(gone))
    result = invoke(["review", str(bundle), "--accept", "spell-1"])
    assert result.status == 0
    assert result.stderr == (
        f"streamer: warning: {review_path(bundle)}: 1 reviewed record is no longer in the "
        "bundle: spell-77\n"
    )
    assert orjson.loads(result.stdout)["stale"] == ["spell-77"]
    kept = load_review(bundle)
    assert kept is not None and kept.rejected("spell-77")
    direct = review(bundle, reject=["turn-2"], registry=api.default_registry())
    assert direct.stale == ("spell-77",)


def test_ids_sort_by_utf16_code_units_as_a_browser_sorts() -> None:
    marks = {"\U0001f600": Mark("accepted"), "\uff5e": Mark("rejected")}
    ordered = Review("d", DIGEST, marks).ordered()
    assert ordered == ["\U0001f600", "\uff5e"]  # a surrogate pair sorts before U+FF5E


def embedded_review(page: bytes) -> object:
    data = page.split(b'id="report-data">', 1)[1].split(b"</script>", 1)[0]
    return orjson.loads(data).get("review")


def test_the_report_reads_the_review_beside_the_bundle_and_reports_stale_ids(
    bundle: Path, tmp_path: Path
) -> None:
    plain = invoke(["report", str(bundle), "--output", str(tmp_path / "plain.html")])
    assert (plain.status, plain.stderr) == (0, "")
    assert embedded_review((tmp_path / "plain.html").read_bytes()) is None
    marks = {"spell-2": Mark("rejected", "secret words"), "spell-77": Mark("accepted")}
    review_path(bundle).write_bytes(review_bytes(Review("demo-slayers-take", DIGEST, marks)))
    page = tmp_path / "page.html"
    shown = invoke(["report", str(bundle), "--output", str(page), "--canon"])
    assert shown.status == 0
    assert shown.stderr == (
        f"streamer: warning: {review_path(bundle)}: 1 reviewed record is no longer in the "
        "bundle: spell-77\n"
    )
    assert embedded_review(page.read_bytes()) == {
        "canon": True,
        "marks": {
            "spell-2": {"verdict": "rejected", "note": "secret words"},
            "spell-77": {"verdict": "accepted"},
        },
        "stale": ["spell-77"],
    }
    # --review FILE: the same page as the file beside the bundle
    moved = tmp_path / "elsewhere.json"
    review_path(bundle).rename(moved)
    given = tmp_path / "given.html"
    again = invoke(
        ["report", str(bundle), "--output", str(given), "--canon", "--review", str(moved)]
    )
    assert again.stderr.startswith(f"streamer: warning: {moved}: 1 reviewed record")
    assert given.read_bytes() == page.read_bytes()


def test_the_report_refuses_a_review_of_another_bundle(bundle: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(review_bytes(Review("elsewhere", DIGEST, {"x": Mark("rejected", "psst")})))
    result = invoke(
        ["report", str(bundle), "--output", str(tmp_path / "p.html"), "--review", str(other)]
    )
    assert result.status == 3
    assert result.stderr.splitlines()[0].partition(" (hint: ")[0] == (
        f"streamer: error: --review {other} reviews another bundle than {bundle} "
        "(its document ID or semantic digest differs)"
    )
    assert "psst" not in result.stderr
    assert not (tmp_path / "p.html").exists()


def test_validate_checks_a_review_file(bundle: Path) -> None:
    review(bundle, accept=["spell-1"], reject=["spell-2"], notes=[("spell-2", "a private note")])
    path = review_path(bundle)
    checked = invoke(["validate", str(path)])
    assert (checked.status, checked.stderr) == (0, "")
    assert orjson.loads(checked.stdout) == {
        "status": "valid",
        "artifact_kind": "review/records",
        "document_id": "demo-slayers-take",
        "accepted": 1,
        "rejected": 1,
    }
    data = orjson.loads(path.read_bytes())
    data["records"]["spell-2"]["verdict"] = "maybe"
    path.write_bytes(orjson.dumps(data))
    invalid = invoke(["validate", str(path)])
    assert invalid.status == 3
    assert invalid.stdout == b""
    assert invalid.stderr.partition(" (hint: ")[0] == (
        f"streamer: error: review {path} is not valid (1 problem): "
        "$.records['spell-2'].verdict breaks the schema rule 'enum' (notarius.review)"
    )
    assert "a private note" not in invalid.stderr

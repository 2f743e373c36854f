"""Each import format: the committed fixture gives exactly the committed source document,
from a file, from stdin and into a file, every time; the result is a valid source
document (the reader verifies its digest)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer.framework.source.reader import SourceDocumentReader
from tests.import_cases import CASE_IDS, CASES, EXPECTED, ImportCase
from tests.support import invoke


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_fixture_imports_to_the_expected_bytes_every_time(case: ImportCase) -> None:
    first = invoke(case.args())
    second = invoke(case.args())
    assert (first.status, first.stderr) == (0, "")
    assert first.stdout == case.expected_bytes
    assert second.stdout == first.stdout


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_stdin_gives_the_same_bytes_as_the_file(case: ImportCase) -> None:
    data = Path(case.input_path).read_bytes()
    run = invoke(case.args("-", "--document-id", case.document_id), input=data)
    assert (run.status, run.stderr) == (0, "")
    assert run.stdout == case.expected_bytes


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_output_file_holds_the_same_bytes(case: ImportCase, tmp_path: Path) -> None:
    out = tmp_path / "source.jsonl"
    run = invoke(case.args(None, "--output", str(out)))
    assert (run.status, run.stdout, run.stderr) == (0, b"", "")
    assert out.read_bytes() == case.expected_bytes
    assert sorted(path.name for path in tmp_path.iterdir()) == ["source.jsonl"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_expected_document_is_a_valid_source_document(case: ImportCase) -> None:
    data = case.expected_bytes
    lines = data.splitlines()
    header = orjson.loads(lines[0])
    assert list(header) == ["document_id", "semantic_digest"]
    assert header["document_id"] == case.document_id
    reader = SourceDocumentReader(io.BytesIO(data))
    units = list(reader)
    assert reader.identity.semantic_digest == header["semantic_digest"]
    assert reader.identity.unit_count == len(lines) - 1 == len(units)
    for line in lines[1:]:
        unit = orjson.loads(line)
        assert list(unit) in (["unit_id", "kind", "text"], ["unit_id", "kind", "text", "metadata"])
        assert unit["kind"] == "utterance"
        metadata = unit.get("metadata", {})
        order = ["speaker", "start_ms", "end_ms"]
        assert list(metadata) == [key for key in order if key in metadata]
        assert "metadata" not in unit or metadata  # never empty
        assert orjson.dumps(unit) == line  # compact, members in contract order
    assert data.endswith(b"\n") and not data.endswith(b"\n\n")


def test_document_id_option_overrides_the_file_name() -> None:
    case = CASES[0]
    run = invoke(case.args(None, "--document-id", "session-12"))
    assert run.status == 0, run.stderr
    header, _, rest = run.stdout.partition(b"\n")
    expected_header, _, expected_rest = case.expected_bytes.partition(b"\n")
    assert orjson.loads(header) == {
        **orjson.loads(expected_header),
        "document_id": "session-12",
    }
    assert rest == expected_rest  # the digest covers units only


def test_expected_units_of_each_format() -> None:
    """The facts the fixtures were written to show, stated once more in plain values."""

    def units(name: str) -> list[dict[str, Any]]:
        lines = (EXPECTED / name).read_bytes().splitlines()[1:]
        return [orjson.loads(line) for line in lines]

    text = units("text.jsonl")
    assert [u["unit_id"] for u in text] == [f"u{n:06d}" for n in range(1, 12)]
    assert text[4]["metadata"] == {"speaker": "OSKAR"}  # "OSKAR : ..." is a prefix
    assert "metadata" not in text[5]  # "... at 10:30, ..." is not
    assert text[7]["text"] == "Pip goes first. I throw my dagger at its hand: whoosh."

    vtt = units("webvtt.jsonl")
    assert [u["metadata"].get("speaker") for u in vtt] == [
        "Mira", "Mira", "June", "Mira, Oskar", None, "Teo", "Mira",
    ]  # fmt: skip
    assert vtt[5]["text"] == "Pip throws a dagger & hopes <really> hard."
    assert vtt[3]["metadata"] == {"speaker": "Mira, Oskar", "start_ms": 12500, "end_ms": 15000}
    assert vtt[6]["metadata"] == {"speaker": "Mira", "start_ms": 3600000, "end_ms": 3602250}

    whisperx = units("whisperx.jsonl")
    assert [u["metadata"] for u in whisperx] == [
        {"speaker": "SPEAKER_00", "start_ms": 1, "end_ms": 1235},  # 0.0005 s, 1.2345 s
        {"speaker": "SPEAKER_00", "start_ms": 1500, "end_ms": 4000},
        {"speaker": "SPEAKER_01", "start_ms": 4200, "end_ms": 6010},  # 6.0104999 s
        {"start_ms": 7000, "end_ms": 9250},
        {"speaker": "SPEAKER_00", "start_ms": 3600000, "end_ms": 3602250},
    ]

    srt = units("srt.jsonl")
    assert srt[2] == {
        "unit_id": "u000003",
        "kind": "utterance",
        "text": "Is that a goblin with a kitchen knife?",
        "metadata": {"speaker": "JUNE", "start_ms": 10100, "end_ms": 12000},
    }
    assert [u["text"] for u in units("srt-without-speaker-prefix.jsonl")][2] == (
        "JUNE: Is that a goblin with a kitchen knife?"
    )

    crd3 = units("crd3.jsonl")
    assert [u["unit_id"] for u in crd3] == [
        "t00000",
        "t00001",
        "t00002",
        "t00003",
        "t00004",
        "t00010",
    ]
    assert crd3[2]["metadata"] == {"speaker": "OSKAR, TEO"}
    assert crd3[4]["text"] == ""  # a turn without utterances stays citable
    assert [u["unit_id"] for u in units("crd3-line.jsonl")] == [
        "t00000-01", "t00000-02", "t00001-01", "t00002-01", "t00003-01", "t00003-02", "t00010-01",
    ]  # fmt: skip


def test_subrip_hard_space_is_a_no_break_space(tmp_path: Path) -> None:
    (tmp_path / "h.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\nMr.\\hSmith\\Nhere\n")
    run = invoke(["import", "srt", "h.srt"], cwd=tmp_path)
    assert run.status == 0
    unit = orjson.loads(run.stdout.splitlines()[1])
    assert unit["text"] == "Mr.\u00a0Smith here"

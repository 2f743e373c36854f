"""The importers' rules, case by case, in process (the CLI tests cover the wiring)."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

import pytest

from streamer.framework.errors.types import SourceError
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.document import spool_document, utterance
from streamer.importers.formats import read_utterances
from streamer.importers.lines import split_speaker_prefix, text_lines
from streamer.importers.webvtt import cue_text
from streamer.importers.whisperx import seconds_to_ms
from tests.import_cases import plain


def units(fmt: str, data: bytes, **options: Any) -> list[tuple[Any, ...]]:
    return [plain(unit) for unit in read_utterances(fmt, io.BytesIO(data), **options)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("MATT: Roll initiative.", ("MATT", "Roll initiative.")),
        ("DM (Matt):\tYou see a door.", ("DM (Matt)", "You see a door.")),
        ("Laura Bailey : Hi", ("Laura Bailey", "Hi")),
        ("MATT:", ("MATT", "")),
        ("At 10:30 the bell rings.", (None, "At 10:30 the bell rings.")),
        ("See https://example.org: a site", (None, "See https://example.org: a site")),
        ("Note:no space", (None, "Note:no space")),
        (" MATT: leading space", (None, " MATT: leading space")),
        (": no name", (None, ": no name")),
        ("A" * 40 + ": forty", ("A" * 40, "forty")),
        ("A" * 41 + ": forty-one", (None, "A" * 41 + ": forty-one")),
    ],
)
def test_speaker_prefix(line: str, expected: tuple[str | None, str]) -> None:
    assert split_speaker_prefix(line) == expected


def test_text_lines_accept_lf_crlf_cr_and_a_bom() -> None:
    data = b"\xef\xbb\xbfone\r\ntwo\rthree\n\nfour"
    assert list(text_lines(io.BytesIO(data))) == [
        (1, "one"),
        (2, "two"),
        (3, "three"),
        (4, ""),
        (5, "four"),
    ]


@pytest.mark.parametrize(
    ("seconds", "ms"),
    [
        (0, 0),
        (2, 2000),
        (Decimal("1.2345"), 1235),  # halves round up, exactly
        (Decimal("1.0005"), 1001),  # 1.0005 * 1000 is 1000.4999... in binary floating point
        (Decimal("0.0004999"), 0),
        (Decimal("3602.25"), 3602250),
        (None, None),
    ],
)
def test_seconds_to_ms(seconds: Any, ms: int | None) -> None:
    assert seconds_to_ms(seconds, "$.x") == ms


@pytest.mark.parametrize("seconds", [True, "1.5", Decimal("-0.001"), Decimal("1E+400")])
def test_seconds_to_ms_rejects(seconds: Any) -> None:
    with pytest.raises(SourceError, match=r"^\$\.x must be a number of seconds"):
        seconds_to_ms(seconds, "$.x")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["<v.loud.gm Esme>Hi</v>"], ("Esme", "Hi")),
        (["<v   Esme  Vale >Hi"], ("Esme  Vale", "Hi")),
        (["<vx>Hi", "<v>Ho"], (None, "Hi Ho")),  # not voice tags: no annotation
        (["a < b and c > d"], (None, "a  d")),  # "< b and c >" is a tag, as in WebVTT
        (["1 < 2, 3 <= 4"], (None, "1 < 2, 3 <= 4")),  # a "<" without ">" is text
        (["<b>Bold</b> &amp; <00:00:01.000>timed &lt;3"], (None, "Bold & timed <3")),
        (["<v A>one", "<v B>two", "<v A>three"], ("A, B", "one two three")),
        (["<v A &amp; B>duet"], ("A & B", "duet")),
        (["  ", "<i></i>"], (None, "")),
    ],
)
def test_webvtt_cue_text(lines: list[str], expected: tuple[str | None, str]) -> None:
    assert cue_text(lines) == expected


def test_webvtt_arrow_inside_cue_text_starts_the_next_cue_as_webvtt_parsers_do() -> None:
    data = b"WEBVTT\n\n00:01.000 --> 00:02.000\n<v A>one\n00:03.000 --> 00:04.000\n<v B>two\n"
    assert units("webvtt", data) == [
        ("u000001", "one", "A", 1000, 2000),
        ("u000002", "two", "B", 3000, 4000),
    ]


def test_webvtt_speaker_prefix_applies_to_cues_without_a_voice() -> None:
    data = b"WEBVTT\n\n00:01.000 --> 00:02.000\nA: one\n\n00:03.000 --> 00:04.000\n<v B>C: two\n"
    assert units("webvtt", data, speaker_prefix=True) == [
        ("u000001", "one", "A", 1000, 2000),
        ("u000002", "C: two", "B", 3000, 4000),
    ]
    assert units("webvtt", data)[0] == ("u000001", "A: one", None, 1000, 2000)


def test_webvtt_style_after_the_first_cue_is_an_error() -> None:
    data = b"WEBVTT\n\n00:01.000 --> 00:02.000\none\n\nSTYLE\n::cue { color: red }\n"
    with pytest.raises(SourceError, match=r"^line 6: a block without cue timings$"):
        units("webvtt", data)


def test_webvtt_cue_on_the_line_after_the_header_is_not_a_cue() -> None:
    """Issue 9, item 17: the header ends at the first empty line."""
    data = b"WEBVTT\n00:01.000 --> 00:02.000\none\n"
    with pytest.raises(SourceError, match=r"^line 2: cue timings in the WebVTT header$"):
        units("webvtt", data)
    assert units("webvtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\none\n") == [
        ("u000001", "one", None, 1000, 2000)
    ]


def test_srt_without_cue_numbers_and_with_a_final_cue_without_blank_line() -> None:
    data = b"00:00:01,000 --> 00:00:02,000\none\n\n00:00:03,000 --> 00:00:04,500\ntwo"
    assert units("srt", data) == [
        ("u000001", "one", None, 1000, 2000),
        ("u000002", "two", None, 3000, 4500),
    ]


def test_empty_inputs() -> None:
    assert units("srt", b"") == []
    assert units("text", b"\n  \n") == []
    assert units("whisperx", b'{"segments": []}') == []
    assert units("crd3", b'{"TURNS": []}') == []
    with pytest.raises(SourceError, match=r"^line 1: a WebVTT file must start with WEBVTT$"):
        units("webvtt", b"")
    with pytest.raises(SourceError, match=r"^not valid JSON at the start of the input$"):
        units("whisperx", b"")


def test_crd3_names() -> None:
    data = b'{"TURNS": [{"NAMES": [" A ", "", "B"], "UTTERANCES": [" x ", "", "y"], "NUMBER": 7}]}'
    assert units("crd3", data) == [("t00007", "x y", "A, B", None, None)]
    assert units("crd3", data, unit="line") == [
        ("t00007-01", "x", "A, B", None, None),
        ("t00007-02", "", "A, B", None, None),
        ("t00007-03", "y", "A, B", None, None),
    ]
    no_names = b'{"TURNS": [{"NAMES": [], "UTTERANCES": ["x"], "NUMBER": 0}]}'
    assert units("crd3", no_names) == [("t00000", "x", None, None, None)]


def test_json_formats_ignore_other_members_but_not_a_second_array() -> None:
    data = b'{"language": "en", "segments": [{"text": "a"}], "word_segments": [{"text": "b"}]}'
    assert units("whisperx", data) == [("u000001", "a", None, None, None)]
    twice = b'{"segments": [{"text": "a"}], "segments": [{"text": "b"}]}'
    with pytest.raises(
        SourceError, match=r'^\$: member "segments" appears twice \(member names must be unique\)$'
    ):
        units("whisperx", twice)


def test_spooled_document_header_and_lines() -> None:
    document = spool_document("doc", read_utterances("text", io.BytesIO(b"A: x\ny\n")))
    out = io.BytesIO()
    try:
        document.write_to(out)
    finally:
        document.close()
    lines = out.getvalue().splitlines()
    assert lines[1:] == [
        b'{"unit_id":"u000001","kind":"utterance","text":"x","metadata":{"speaker":"A"}}',
        b'{"unit_id":"u000002","kind":"utterance","text":"y"}',
    ]
    assert lines[0].startswith(b'{"document_id":"doc","semantic_digest":"sha256:')
    assert document.unit_count == 2


@pytest.mark.parametrize(
    ("units", "message"),
    [
        (
            [utterance("u1", "a"), SourceUnit("", "utterance", "x")],
            "unit 2.unit_id must be a non-empty string",
        ),
        ([utterance("u1", "a", None, 5, 1)], "unit 1.metadata: start_ms is after end_ms"),
        (
            [utterance("u1", "a", None, 2**53, None)],
            "unit 1.metadata.start_ms must be an integer from 0 to 2**53-1",
        ),
        ([SourceUnit("u1", "utterance", 3)], "unit 1.text must be a string"),  # type: ignore[arg-type]
        (
            [utterance(f"u{i}", "a") for i in range(5000)] + [utterance("x", "a", 7)],  # type: ignore[arg-type]
            "unit 5001.metadata.speaker must be a string",
        ),
    ],
)
def test_the_writer_refuses_a_unit_that_breaks_the_contract(
    units: list[SourceUnit], message: str
) -> None:
    """The batch check guards against a defect of an importer: the unit is named by its
    position (never by its content), and nothing is spooled."""
    with pytest.raises(SourceError) as caught:
        spool_document("doc", units)
    assert caught.value.one_line() == message

"""The bulk path of the JSON importers (a run of turns or segments decoded as typed structs
at once) gives the units and the errors of a plain reading of the document, whatever the
items hold: extra or repeated members, numbers out of order or out of range, members that
are absent, null or of another type."""

from __future__ import annotations

import contextlib
import io
import json
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import string_literals
from streamer.importers import crd3, json_items, whisperx
from streamer.importers.crd3 import read_crd3
from streamer.importers.whisperx import read_whisperx

TEXT = st.text(
    alphabet=st.sampled_from(["a", " ", "é", '"', "\\", "竜", "[", "}", ","]), max_size=6
)
STRINGS = st.lists(TEXT, max_size=3)
WORDS = [  # words as WhisperX writes them, and others: numbers of every kind, nulls, extras
    '{"word": "a", "start": 1.5, "end": 2, "score": 0.25, "speaker": "S"}',
    '{"word": "\u7adc\u00e9", "start": 0, "end": 1e-3, "score": 1, "speaker": "\u00e9 \\\\"}',
    '{"word": "a\\"]}", "start": 1.5, "end": 2, "score": 0.25}',
    '{"word": "a", "word": "b", "start": 1, "end": 2, "score": 0.5, "speaker": "S"}',
    '{"word": "a", "start": 1, "end": 2, "score": 0.5, "score": 0.5}',
    '{"word": "a", "start": 1, "end": 2, "score": 0.5, "speaker": null}',
    '{"word": "a", "start": null, "end": 1e3}',
    '{"word": null, "speaker": null}',
    '{"score": -0.5, "speaker": "x"}',
    "{}",
    '{"word": "a", "extra": 1}',
]


@st.composite
def turns(draw: st.DrawFn) -> list[str]:
    """Turns as JSON texts (so that a member can repeat), numbers mostly increasing."""
    texts = []
    number = 0
    for _ in range(draw(st.integers(0, 12))):
        number += draw(st.sampled_from([1, 1, 1, 2, 0, -1]))
        members = [
            ("NAMES", draw(st.one_of(STRINGS, st.just([1])))),
            ("UTTERANCES", draw(st.one_of(STRINGS, st.just("x")))),
            ("NUMBER", draw(st.sampled_from([number, number, number, 1.5, "1"]))),
        ]
        if draw(st.integers(0, 9)) == 0:
            members.append(("EXTRA", draw(STRINGS)))
        if draw(st.integers(0, 9)) == 0:
            members.append(draw(st.sampled_from(members)))  # a member repeated
        if draw(st.integers(0, 9)) == 0:
            members.pop(draw(st.integers(0, len(members) - 1)))
        body = ", ".join(f"{json.dumps(name)}: {json.dumps(value)}" for name, value in members)
        texts.append("{" + body + "}")
    return texts


def reference(text: str) -> tuple[list[tuple[str, str, str | None]], str | None]:
    """The units (turn mode) of the document and the error message (or None), by the rules
    of ``crd3``'s docstring, read plainly."""
    units: list[tuple[str, str, str | None]] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [name for name, _ in pairs]
        return dict(pairs, **({"": "repeated"} if len(set(names)) != len(names) else {}))

    document = json.loads(text, object_pairs_hook=hook)
    previous = -1
    for index, turn in enumerate(document["TURNS"]):
        where = f"$.TURNS[{index}]"
        if "" in turn:  # a member repeated: the parser stops there
            return units, "repeated"
        for member in ("NAMES", "UTTERANCES", "NUMBER"):
            if member not in turn:
                return units, f"{where}.{member} is required"
        number = turn["NUMBER"]
        if type(number) is not int or number < 0:
            return units, f"{where}.NUMBER must be an integer >= 0"
        if number <= previous:
            return units, f"{where}.NUMBER must be greater than the previous turn's"
        previous = number
        for member in ("NAMES", "UTTERANCES"):
            value = turn[member]
            if type(value) is not list or any(type(item) is not str for item in value):
                return units, f"{where}.{member} must be a list of strings"
        speaker = ", ".join(name.strip() for name in turn["NAMES"] if name.strip()) or None
        line = " ".join(text.strip() for text in turn["UTTERANCES"] if text.strip())
        units.append((f"t{number:05d}", line, speaker))
    return units, None


def imported(text: str) -> tuple[list[tuple[str, str, str | None]], str | None]:
    units: list[tuple[str, str, str | None]] = []
    try:
        for unit in read_crd3(io.BytesIO(text.encode("utf-8"))):
            speaker = None if not unit.metadata else unit.metadata.speaker
            units.append((unit.unit_id, unit.text, speaker))  # type: ignore[arg-type]
    except SourceError as error:
        message = error.message
        return units, "repeated" if "appears twice" in message else message
    return units, None


@pytest.mark.parametrize("buffer", [7, 64, 1 << 16])
@settings(max_examples=150, deadline=None)
@given(items=turns())
def test_runs_give_the_units_and_errors_of_a_plain_reading(buffer: int, items: list[str]) -> None:
    text = '{"METADATA": {"a": [1]}, "TURNS": [' + ",\n".join(items) + "]}"
    saved = json_items.BUFFER_SIZE
    json_items.BUFFER_SIZE = buffer
    try:
        got_units, got_error = imported(text)
    finally:
        json_items.BUFFER_SIZE = saved
    want_units, want_error = reference(text)
    assert got_error == want_error
    if want_error is None or want_error != "repeated":
        assert got_units == want_units


SECONDS = st.one_of(
    st.none(),
    st.integers(-2, 10**13),
    st.decimals(min_value=-1, max_value=10**4, places=4, allow_nan=False),
    st.just("1"),
)


@st.composite
def segments(draw: st.DrawFn) -> list[str]:
    """WhisperX segments as JSON texts: times in and out of range, absent or null members,
    words, other members, a member repeated."""
    texts = []
    for _ in range(draw(st.integers(0, 10))):
        members: list[tuple[str, Any]] = [("text", draw(st.one_of(TEXT, st.just(5))))]
        for name in ("start", "end"):
            if draw(st.integers(0, 5)):
                members.append((name, draw(SECONDS)))
        if draw(st.booleans()):
            members.append(("speaker", draw(st.one_of(st.none(), TEXT))))
        if draw(st.integers(0, 2)) == 0:  # mostly aligned words of one shape, some others
            shape = draw(st.sampled_from(WORDS[:3]))
            listed = draw(st.lists(st.sampled_from([shape] * 8 + WORDS), max_size=5))
            members.append(("words", _Raw("[" + ", ".join(listed) + "]")))
        if draw(st.integers(0, 9)) == 0:
            members.append(("id", 3))
        if draw(st.integers(0, 9)) == 0:
            members.append(draw(st.sampled_from(members)))
        body = ", ".join(f"{json.dumps(name)}: {_number(value)}" for name, value in members)
        texts.append("{" + body + "}")
    return texts


class _Raw(str):
    """A JSON text written as it is (a member may repeat in it)."""


def _number(value: Any) -> str:
    if isinstance(value, _Raw):
        return str(value)
    return str(value) if isinstance(value, Decimal) else json.dumps(value)


def _repeats(value: Any) -> bool:
    """Whether a member repeats in ``value`` (parsed by the reference's hook) or in it."""
    if isinstance(value, dict):
        return "" in value or any(map(_repeats, value.values()))
    return isinstance(value, list) and any(map(_repeats, value))


def whisperx_reference(text: str) -> tuple[list[tuple[Any, ...]], str | None]:
    """The units and the error of the document by the rules of ``whisperx``'s docstring."""
    units: list[tuple[Any, ...]] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [name for name, _ in pairs]
        return dict(pairs, **({"": "repeated"} if len(set(names)) != len(names) else {}))

    document = json.loads(text, object_pairs_hook=hook, parse_float=Decimal)
    for index, segment in enumerate(document["segments"]):
        where = f"$.segments[{index}]"
        if _repeats(segment):
            return units, "repeated"
        if type(segment.get("text")) is not str:
            return units, f"{where}.text must be a string"
        speaker = segment.get("speaker")
        if speaker is not None and type(speaker) is not str:
            return units, f"{where}.speaker must be a string"
        times: list[int | None] = []
        for name in ("start", "end"):
            value = segment.get(name)
            if value is not None and type(value) not in (int, Decimal):
                return units, f"{where}.{name} must be a number of seconds"
            if value is not None and not 0 <= value <= Decimal(2**53 - 1) / 1000:
                return units, f"{where}.{name} must be a number of seconds from 0 to (2**53-1)/1000"
            times.append(
                None
                if value is None
                else int((Decimal(value) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))
            )
        start, end = times
        if start is not None and end is not None and start > end:
            return units, f"{where}: end is before start"
        line = segment["text"].strip()
        if line:
            cleaned = None if speaker is None else speaker.strip() or None
            units.append((f"u{len(units) + 1:06d}", line, cleaned, *times))
    if _repeats(document["word_segments"]):
        return units, "repeated"
    return units, None


def whisperx_imported(text: str) -> tuple[list[tuple[Any, ...]], str | None]:
    units: list[tuple[Any, ...]] = []
    try:
        for unit in read_whisperx(io.BytesIO(text.encode("utf-8"))):
            metadata = unit.metadata
            times: list[int | None] = [None, None]
            speaker: str | None = None
            if metadata:
                speaker = None if metadata.speaker is UNSET else metadata.speaker
                times = [
                    t if isinstance(t, int) else None for t in (metadata.start_ms, metadata.end_ms)
                ]
            units.append((unit.unit_id, unit.text, speaker, *times))
    except SourceError as error:
        message = error.message
        return units, "repeated" if "appears twice" in message else message
    return units, None


@pytest.mark.parametrize("buffer", [7, 64, 1 << 16])
@settings(max_examples=150, deadline=None)
@given(items=segments(), words=st.lists(st.sampled_from(WORDS), max_size=4))
def test_whisperx_runs_give_the_units_and_errors_of_a_plain_reading(
    buffer: int, items: list[str], words: list[str]
) -> None:
    """Buffers of 7 bytes split the multi-byte characters; words of one shape (decoded as
    the aligned structs, counted without a step per word) and of others, members repeated
    in a segment, a word or ``word_segments``."""
    text = '{"language": "en", "segments": [' + ",\n".join(items) + "]"
    text += ', "word_segments": [' + ", ".join(words) + "]}"
    saved = json_items.BUFFER_SIZE
    json_items.BUFFER_SIZE = buffer
    try:
        got_units, got_error = whisperx_imported(text)
    finally:
        json_items.BUFFER_SIZE = saved
    want_units, want_error = whisperx_reference(text)
    assert got_error == want_error
    if want_error != "repeated":
        assert got_units == want_units


def _encoded_strings(items: list[Any]) -> int:
    return string_literals(msgspec.json.Encoder(decimal_format="number").encode(items))


@given(items=segments(), words=st.lists(st.sampled_from(WORDS), max_size=6))
def test_the_strings_counted_from_decoded_segments_and_words_are_those_they_encode(
    items: list[str], words: list[str]
) -> None:
    """Each struct the fast path tries, with its count (the aligned ones: a fixed count a
    word, no step per word)."""
    for kind, count in whisperx._SEGMENT_KINDS:
        decoded = _decodable(kind, items)
        assert count(decoded) == _encoded_strings(decoded)
    for word_kind, word_count in whisperx._WORD_KINDS:
        word_items = _decodable(word_kind, words)
        assert word_count(word_items) == _encoded_strings(word_items)


@given(items=turns())
def test_the_strings_counted_from_decoded_turns_are_those_they_encode(items: list[str]) -> None:
    decoded = _decodable(crd3._Turn, items)
    assert crd3._turn_strings(decoded) == _encoded_strings(decoded)


@pytest.mark.parametrize(
    "text",
    [
        '{"segments": [{"text": "hi", "words": [{"word": "a", "word": "b"}]}]}',
        '{"segments": [{"text": "hi"}], "word_segments": [{"word": "x"}, {"end": 1, "end": 2}]}',
    ],
)
def test_a_member_repeated_in_a_word_is_refused(text: str) -> None:
    with pytest.raises(SourceError, match="appears twice"):
        list(read_whisperx(io.BytesIO(text.encode())))


def _decodable(kind: Any, texts: list[str]) -> list[Any]:
    """The items of ``texts`` that decode as ``kind`` (the others are read by the
    reference path, which does not count)."""
    decoded = []
    for text in texts:
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            decoded.append(msgspec.json.decode(text, type=kind))
    return decoded


@pytest.mark.parametrize("buffer", [1 << 10, 1 << 16])
def test_too_deep_nesting_is_found_before_the_items_of_its_buffer(buffer: int) -> None:
    """An item read (out of range: refused after it is decoded) before input nested too
    deeply in the same buffer: the nesting is what is refused, as when the nesting scan
    read the whole buffer first, whichever cut (exact or quick) took the items."""
    valid = ['{"text": "a b", "start": 1, "end": 2}'] * (buffer * 3 // 2 // 40)  # 1.5 buffers
    bad = '{"text": "late", "start": -1, "end": 2}'
    deep = '{"text": "deep", "id": ' + "[" * 40 + "]" * 40 + "}"
    for tail in ([bad, valid[0], deep], [bad, deep]):
        text = '{"segments": [' + ", ".join(valid + tail) + "]}"
        saved = json_items.BUFFER_SIZE
        json_items.BUFFER_SIZE = buffer
        try:
            with pytest.raises(SourceError, match="nested more than 32 levels"):
                list(read_whisperx(io.BytesIO(text.encode())))
        finally:
            json_items.BUFFER_SIZE = saved

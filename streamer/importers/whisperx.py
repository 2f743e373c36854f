"""``whisperx``: the JSON that WhisperX writes, ``{"segments": [{"start": 1.23, "end": 4.5,
"text": "...", "speaker": "SPEAKER_00", ...}], ...}``.

``segments`` is streamed with ijson, one segment at a time; other members (``words``,
``word_segments``, ``language``) are ignored. One unit per segment with text (a segment
whose text is empty or white space is skipped), unit IDs ``u000001``, ``u000002``, ... in
segment order. ``start`` and ``end`` are seconds (numbers >= 0, or absent / null); they
become integer milliseconds rounded to the nearest, halves up, computed exactly from the
decimal number written in the file (``1.2345`` -> 1235). ``speaker`` is optional.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import ROUND_HALF_UP, Decimal, DecimalException
from typing import Any, BinaryIO

import msgspec
from msgspec import UNSET, UnsetType

from streamer.framework.errors.types import SourceError
from streamer.framework.json.canonical import MAX_SAFE_INTEGER
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.document import clean_speaker, sequential_unit_id, utterance
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.json_items import array_runs

_MAX_SECONDS = Decimal(MAX_SAFE_INTEGER) / 1000
_MAX_WHOLE_SECONDS = MAX_SAFE_INTEGER // 1000
_ZERO, _THOUSAND = Decimal(0), Decimal(1000)


def seconds_to_ms(value: Any, path: str) -> int | None:
    """Seconds (a JSON number, read exactly) as integer milliseconds; ``None`` for null."""
    if value is None:
        return None
    kind = type(value)
    if kind is int:
        if 0 <= value <= _MAX_WHOLE_SECONDS:
            return int(value) * 1000
    elif kind is Decimal:
        try:
            if 0 <= value <= _MAX_SECONDS:
                return int((value * 1000).to_integral_value(rounding=ROUND_HALF_UP))
        except DecimalException:  # an exponent beyond the decimal context's range
            pass
    else:
        raise SourceError(f"{path} must be a number of seconds")
    raise SourceError(f"{path} must be a number of seconds from 0 to (2**53-1)/1000")


class _Word(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A word of an aligned segment, as WhisperX writes it (read, never used: its numbers
    are floats, cheaper than decimals)."""

    word: str | UnsetType = UNSET
    start: float | UnsetType | None = UNSET
    end: float | UnsetType | None = UNSET
    score: float | UnsetType | None = UNSET
    speaker: str | UnsetType | None = UNSET


def _word_strings(words: list[_Word]) -> int:
    """The member names and string values the words were decoded from."""
    count = 0
    for word in words:
        text, speaker = word.word, word.speaker
        count += (
            (text is not UNSET)
            + (type(text) is str)
            + (word.start is not UNSET)
            + (word.end is not UNSET)
            + (word.score is not UNSET)
            + (speaker is not UNSET)
            + (type(speaker) is str)
        )
    return count


class _SegmentBase(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A segment as the fast path takes it: these members, ``words`` (of a subclass) and
    no other."""

    text: str
    start: Decimal | UnsetType | None = UNSET
    end: Decimal | UnsetType | None = UNSET
    speaker: str | UnsetType | None = UNSET


class _Segment(_SegmentBase, forbid_unknown_fields=True, gc=False):
    """A segment whose words are any ``_Word``."""

    words: list[_Word] | UnsetType = UNSET


class _AlignedWord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A word with the five members WhisperX writes for an aligned word of a diarized
    transcript, all required: 7 strings each, counted without a step per word."""

    word: str
    start: float
    end: float
    score: float
    speaker: str


class _AlignedUndiarizedWord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An aligned word without a speaker (a transcript not diarized): 5 strings each."""

    word: str
    start: float
    end: float
    score: float


class _AlignedSegment(_SegmentBase, forbid_unknown_fields=True, gc=False):
    """A segment whose words are all ``_AlignedWord``."""

    words: list[_AlignedWord] | UnsetType = UNSET


class _AlignedUndiarizedSegment(_SegmentBase, forbid_unknown_fields=True, gc=False):
    """A segment whose words are all ``_AlignedUndiarizedWord``."""

    words: list[_AlignedUndiarizedWord] | UnsetType = UNSET


def _head_strings(segment: _Segment | _AlignedSegment | _AlignedUndiarizedSegment) -> int:
    """The member names and string values of a segment, less its words' (``words``, its
    name, included when present)."""
    speaker = segment.speaker
    return (
        2  # text
        + (segment.start is not UNSET)
        + (segment.end is not UNSET)
        + (speaker is not UNSET)
        + (type(speaker) is str)
        + (segment.words is not UNSET)
    )


def _segment_strings(segments: list[_Segment]) -> int:
    """The member names and string values the segments were decoded from."""
    count = 0
    for segment in segments:
        count += _head_strings(segment)
        if segment.words is not UNSET:
            count += _word_strings(segment.words)
    return count


def _aligned_strings(
    segments: Sequence[_AlignedSegment | _AlignedUndiarizedSegment], per_word: int
) -> int:
    """The strings of segments whose words all have ``per_word`` strings."""
    count = 0
    for segment in segments:
        count += _head_strings(segment)
        if segment.words is not UNSET:
            count += per_word * len(segment.words)
    return count


_WORD_KINDS = (
    (_AlignedWord, lambda words: 7 * len(words)),
    (_AlignedUndiarizedWord, lambda words: 5 * len(words)),
    (_Word, _word_strings),
)
_SEGMENT_KINDS = (  # tried in this order (then from the one that decoded the last run)
    (_AlignedSegment, lambda segments: _aligned_strings(segments, 7)),
    (_AlignedUndiarizedSegment, lambda segments: _aligned_strings(segments, 5)),
    (_Segment, _segment_strings),
)


def read_whisperx(stream: BinaryIO) -> Iterator[SourceUnit]:
    """A run of segments decoded as ``_Segment`` gives its units in bulk when every one is
    in range; any other run is read segment by segment, which raises the located error."""
    count = 0
    runs = array_runs(stream, "segments", _SEGMENT_KINDS, {"word_segments": _WORD_KINDS})
    for start, items in runs:
        if isinstance(items[0], _SegmentBase):
            units = _segment_units(items, count)
            if units is not None:
                count += len(units)
                yield from units
                continue
            items = [msgspec.to_builtins(item, builtin_types=(Decimal,)) for item in items]
        for index, segment in enumerate(items, start):
            unit = _read_segment(segment, f"$.segments[{index}]", count)
            if unit is not None:
                count += 1
                yield unit


def _milliseconds(value: Decimal | UnsetType | None) -> int | None:
    """``value`` seconds in milliseconds; raises ``ValueError`` when out of range. (The
    constants are decimals: a decimal compared with or multiplied by an int converts it
    each time, four times the cost.)"""
    if value is None or value is UNSET:
        return None
    if not _ZERO <= value <= _MAX_SECONDS:
        raise ValueError(value)
    return int((value * _THOUSAND).to_integral_value(ROUND_HALF_UP))


def _segment_units(segments: list[_SegmentBase], count: int) -> list[SourceUnit] | None:
    """The units of a run of typed segments, or ``None`` when a time is out of range or
    ends before it starts."""
    units: list[SourceUnit] = []
    try:
        for segment in segments:
            start, end = _milliseconds(segment.start), _milliseconds(segment.end)
            if start is not None and end is not None and start > end:
                return None
            text = segment.text.strip()
            if text:
                speaker = segment.speaker
                units.append(
                    utterance(
                        f"u{count + len(units) + 1:06d}",
                        text,
                        None if speaker is UNSET else clean_speaker(speaker),
                        start,
                        end,
                    )
                )
    except (ValueError, DecimalException):
        return None
    return units


def _read_segment(segment: Any, where: str, count: int) -> SourceUnit | None:
    """The unit of one segment, checked (``None`` when it has no text)."""
    if type(segment) is not dict:
        raise SourceError(f"{where} must be an object")
    text = segment.get("text")
    if type(text) is not str:
        raise SourceError(f"{where}.text must be a string")
    speaker = segment.get("speaker")
    if speaker is not None and type(speaker) is not str:
        raise SourceError(f"{where}.speaker must be a string")
    start = seconds_to_ms(segment.get("start"), f"{where}.start")
    end = seconds_to_ms(segment.get("end"), f"{where}.end")
    if start is not None and end is not None and start > end:
        raise SourceError(f"{where}: end is before start")
    text = text.strip()
    if not text:
        return None
    return utterance(sequential_unit_id(count + 1), text, clean_speaker(speaker), start, end)


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_whisperx(stream)


FORMAT = TranscriptFormat(
    "whisperx",
    "a WhisperX transcript (JSON segments, with speakers when diarized)",
    _read,
    suffixes=(".json",),
    json_member="segments",
)

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

from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal, DecimalException
from typing import Any, BinaryIO

from streamer.framework.canonical_json import MAX_SAFE_INTEGER
from streamer.framework.errors import SourceError
from streamer.framework.source.unit import SourceUnit
from streamer.importers.document import clean_speaker, sequential_unit_id, utterance
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.json_items import array_items

_MAX_SECONDS = Decimal(MAX_SAFE_INTEGER) / 1000
_MAX_WHOLE_SECONDS = MAX_SAFE_INTEGER // 1000


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


def read_whisperx(stream: BinaryIO) -> Iterator[SourceUnit]:
    count = 0
    for index, segment in array_items(stream, "segments"):
        where = f"$.segments[{index}]"
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
            continue
        count += 1
        yield utterance(sequential_unit_id(count), text, clean_speaker(speaker), start, end)


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_whisperx(stream)


FORMAT = TranscriptFormat(
    "whisperx",
    "a WhisperX transcript (JSON segments, with speakers when diarized)",
    _read,
    suffixes=(".json",),
)

"""The import floors: for each format, the cheapest pass that parses the same input with
the same libraries and writes the same source document with its digest.

``python -m benchmarks.import_floors FORMAT INPUT OUTPUT``. A floor reads the whole input
at once (it may hold it: a floor, not a product), parses it in bulk (CRD3 and WhisperX: one
typed msgspec decode; SRT, WebVTT and text: one split into lines, then into blocks), builds
the units with as little per-unit Python as the format allows, encodes them as the published
and the canonical JSON lines (msgspec, as the importers do), digests the canonical lines and
writes the header and the units. It checks nothing an importer checks (the generated inputs
are valid) but what a parser that drops part of the input would let through: WhisperX's
words are dropped by the import but still checked (valid UTF-8, no member repeated), so the
WhisperX floor decodes them and counts the strings (``whisperx``). It knows only what the
generated inputs hold (``benchmarks.import_bench``):
no byte order marks, CR line ends, ``NOTE`` blocks between cues, rolling captions, or
entities. The output must be byte-identical to ``streamer import``'s: the benchmark checks it.
A floor imports nothing from ``streamer.importers``: where it builds a unit as an importer
does (CRD3's turns), the lines are written again here on purpose, so that the byte-identity
check compares two implementations and the floor times none of the importer's code.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import msgspec
import orjson
from msgspec import UNSET, UnsetType

from streamer.framework.json.byte_scan import string_literals
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata

KIND = "utterance"
_published = msgspec.json.Encoder()
_canonical = msgspec.json.Encoder(order="sorted")


def write_document(path: Path, document_id: str, units: Sequence[SourceUnit]) -> None:
    """The header (with the digest of the canonical lines) and the published lines."""
    digest = hashlib.sha256(_canonical.encode_lines(units)).hexdigest()
    header = orjson.dumps({"document_id": document_id, "semantic_digest": "sha256:" + digest})
    with open(path, "wb") as out:
        out.write(header + b"\n")
        out.write(_published.encode_lines(units))


def _unit(unit_id: str, text: str, speaker: str | None) -> SourceUnit:
    if speaker:
        return SourceUnit(unit_id, KIND, text, metadata=UnitMetadata(speaker))
    return SourceUnit(unit_id, KIND, text)


def _timed(unit_id: str, text: str, speaker: str | None, start: int, end: int) -> SourceUnit:
    return SourceUnit(unit_id, KIND, text, metadata=UnitMetadata(speaker or UNSET, start, end))


# -- JSON formats: one typed decode ----------------------------------------------------------


class _Turn(msgspec.Struct):
    NAMES: list[str]
    UTTERANCES: list[str]
    NUMBER: int


class _Episode(msgspec.Struct):
    TURNS: list[_Turn]


def crd3(data: bytes) -> list[SourceUnit]:
    """One typed decode; a list of one string (nearly every turn's names, half the turns'
    utterances) is only stripped, others joined (the non-empty stripped items)."""
    turns = msgspec.json.decode(data, type=_Episode).TURNS
    strip = str.strip
    units: list[SourceUnit] = []
    append = units.append
    for turn in turns:
        lines, names = turn.UTTERANCES, turn.NAMES
        text = lines[0].strip() if len(lines) == 1 else " ".join(filter(None, map(strip, lines)))
        speaker = (
            names[0].strip() if len(names) == 1 else ", ".join(filter(None, map(strip, names)))
        )
        append(_unit(f"t{turn.NUMBER:05d}", text, speaker))
    return units


class _Word(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    word: str  # the generated words always have all five members
    start: float
    end: float
    score: float
    speaker: str


class _Segment(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str
    start: Decimal  # the generated inputs always have the times and the speaker
    end: Decimal
    speaker: str
    words: msgspec.Raw | UnsetType = UNSET  # decoded segment by segment (below)


class _WordSegment(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    word: str
    start: float
    end: float


class _Transcript(msgspec.Struct, forbid_unknown_fields=True):
    segments: list[_Segment]
    word_segments: list[_WordSegment] | UnsetType = UNSET
    language: str | UnsetType = UNSET


_words = msgspec.json.Decoder(list[_Word]).decode


def _ms(seconds: Decimal) -> int:
    return int((seconds * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def whisperx(data: bytes) -> list[SourceUnit]:
    """One typed decode of the document, then of each segment's words: the import must
    refuse a repeated member name or a string that is not UTF-8 anywhere, also in the words
    it drops, which a decode that skips them (as msgspec skips unknown members) accepts
    silently. So every string is decoded (UTF-8 checked; structs that forbid unknown fields
    match every member name), and the strings decoded are counted against the string
    literals of the bytes (one count in C): a repeated member is decoded once but written
    twice. Every member of the structs is required (the generated inputs have them all),
    so the count takes no per-word Python: a segment has 6 strings, a word 7, an entry of
    ``word_segments`` 4. The words are decoded a segment at a time (about 1 KiB), not with
    the document: their structs, dropped at once, reuse the same memory (the whole
    document's 900,000 words held at once cost 0.15 s more, most of it in page faults)."""
    transcript = msgspec.json.decode(data, type=_Transcript)
    segments = transcript.segments
    count = 1 + 6 * len(segments)
    units: list[SourceUnit] = []
    for segment in segments:
        if segment.words is not UNSET:
            count += 1 + 7 * len(_words(segment.words))
        text = segment.text.strip()
        if text:
            unit_id = f"u{len(units) + 1:06d}"
            units.append(
                _timed(unit_id, text, segment.speaker, _ms(segment.start), _ms(segment.end))
            )
    if transcript.word_segments is not UNSET:
        count += 1 + 4 * len(transcript.word_segments)
    if transcript.language is not UNSET:
        count += 2
    if string_literals(data) != count:
        raise ValueError("a member name appears twice")
    return units


# -- line formats: one split ------------------------------------------------------------------

_PREFIX = re.compile(r"([^\s:][^:]{0,39}?)[ \t]*:(?:[ \t]+|\Z)")
_SRT_TAGS = re.compile(r"</?(?:[ibus]|font)(?:[ \t][^<>]*)?>|\{\\[^{}]*\}", re.IGNORECASE)
_VOICE = re.compile(r"<v(?:\.[^ \t\n\f\r>]*)?[ \t]+([^>]*)>")
_TAG = re.compile(r"<[^>]*>")
_TIME = re.compile(r"(\d+):(\d\d):(\d\d)[,.](\d{3}) --> (\d+):(\d\d):(\d\d)[,.](\d{3})")


def text(data: bytes) -> list[SourceUnit]:
    units: list[SourceUnit] = []
    prefix = _PREFIX.match
    for line in data.decode("utf-8").split("\n"):
        line = line.strip()
        match = prefix(line)
        speaker = None
        if match is not None:
            speaker, line = match.group(1).strip(), line[match.end() :].strip()
        if line:
            units.append(_unit(f"u{len(units) + 1:06d}", line, speaker))
    return units


def _cue_times(line: str) -> tuple[int, int]:
    h, m, s, f, h2, m2, s2, f2 = map(int, _TIME.match(line).groups())  # type: ignore[union-attr]
    return ((h * 60 + m) * 60 + s) * 1000 + f, ((h2 * 60 + m2) * 60 + s2) * 1000 + f2


def _cues(data: bytes, skip: int) -> Iterable[list[str]]:
    return (block.split("\n") for block in data.decode("utf-8").split("\n\n")[skip:] if block)


def srt(data: bytes) -> list[SourceUnit]:
    units: list[SourceUnit] = []
    for lines in _cues(data, 0):
        start, end = _cue_times(lines[1])
        cleaned = [_SRT_TAGS.sub("", line).strip() for line in lines[2:]]
        units.append(
            _timed(f"u{len(units) + 1:06d}", " ".join(filter(None, cleaned)), None, start, end)
        )
    return units


def webvtt(data: bytes) -> list[SourceUnit]:
    units: list[SourceUnit] = []
    for lines in _cues(data, 2):  # the WEBVTT line and the NOTE block
        start, end = _cue_times(lines[1])
        body = lines[2:]
        voice = _VOICE.match(body[0])
        speaker = voice.group(1).strip() if voice else None
        cleaned = [_TAG.sub("", line).strip() for line in body]
        units.append(
            _timed(f"u{len(units) + 1:06d}", " ".join(filter(None, cleaned)), speaker, start, end)
        )
    return units


FLOORS: dict[str, Callable[[bytes], list[SourceUnit]]] = {
    "crd3": crd3,
    "whisperx": whisperx,
    "srt": srt,
    "webvtt": webvtt,
    "text": text,
}


def main(argv: Sequence[str] | None = None) -> int:
    format_name, source, output = argv if argv is not None else sys.argv[1:]
    units = FLOORS[format_name](Path(source).read_bytes())
    write_document(Path(output), "bench", units)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

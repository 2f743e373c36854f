"""``webvtt``: WebVTT captions (https://www.w3.org/TR/webvtt1/).

The file starts with ``WEBVTT`` (then the end of the line, a space or a tab; a byte order
mark is allowed) and a header that ends at the first empty line: cue timings in the
header (a cue right after the ``WEBVTT`` line, without an empty line) are an error, not a
cue. Blocks are separated by empty lines: a line of white space inside a block is part of
it (youtube-dl and yt-dlp put one in every cue), and one between blocks is skipped.
``NOTE`` blocks are skipped anywhere, ``STYLE`` and ``REGION`` blocks before the first
cue. A cue is an optional identifier line, the timings
``[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt`` (cue settings after the end time are ignored) and
its text; as the WebVTT parser does, a line holding ``-->`` inside cue text starts the
next cue. Any other block (text without timings) is an error, not silently dropped.

Cue text: tags (``<v Name>``, ``<c.x>``, ``<i>``, ``<b>``, ``<u>``, ``<ruby>``, ``<rt>``,
``<lang ..>``, timestamp tags, closing tags) are removed and character references
(``&amp;``, ``&lt;``, ...) decoded; the text lines are stripped and joined with one
space. The speaker is the annotation of the cue's voice tags (``<v Name>`` or
``<v.class Name>``), several distinct voices joined with ``", "`` in order of appearance.
With ``speaker_prefix``, a cue without a voice tag may give its speaker as a leading
``Name:`` (or ``[Name]:``); without it, only WhisperX's ``[SPEAKER_02]:`` is. A cue
without text is skipped. With ``dedupe_rolling``, rolling captions are deduplicated
(``cues``). Unit IDs ``u000001``, ``u000002``, ... count
the units (cue identifiers are not unique in practice and are ignored).

Errors name the line and the cue, ``cue`` being its position in the file from 1.

Why not ``webvtt-py`` (MIT licence, well kept): ``WebVTT.from_buffer`` reads every line
and every caption into lists before returning, so it cannot stream a long transcript;
its lenient mode silently drops malformed blocks and its errors carry no line numbers.
This parser reads one line at a time and holds one cue.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors.types import SourceError
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.cues import Cue, Utterances
from streamer.importers.document import clean_speaker
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.lines import line_blocks

_SIGNATURE = re.compile(r"WEBVTT(?:[ \t]|\Z)")
_TIMESTAMP = r"(?:([0-9]{2,}):)?([0-5][0-9]):([0-5][0-9])\.([0-9]{3})"
_TIMINGS = re.compile(rf"[ \t]*{_TIMESTAMP}[ \t]*-->[ \t]*{_TIMESTAMP}(?:[ \t].*)?\Z")
# The timings most files write, ``hh:mm:ss.ttt --> hh:mm:ss.ttt`` and settings: where
# ``_TIMINGS`` matches them it finds the same groups, read here without its optional parts.
_USUAL_TIMINGS = re.compile(
    r"([0-9]{2}):([0-5][0-9]):([0-5][0-9])\.([0-9]{3}) --> "
    r"([0-9]{2}):([0-5][0-9]):([0-5][0-9])\.([0-9]{3})(?:[ \t].*)?\Z"
)
_NOTE = re.compile(r"NOTE(?:[ \t]|\Z)")
_HEADER_BLOCK = re.compile(r"(?:STYLE|REGION)[ \t]*\Z")
_VOICE = re.compile(r"v(?:\.[^ \t\n\f\r]*)?[ \t\n\f\r]+(.*)", re.DOTALL)


def _ms(hours: str | None, minutes: str, seconds: str, millis: str) -> int:
    return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis)


def _tokens(line: str) -> Iterator[tuple[str, bool]]:
    """The text and the tags of one line, ``(text, False)`` or ``(tag content, True)``.

    A ``<`` without a ``>`` after it is text; the scan is linear in the line's length.
    """
    position = 0
    while True:
        start = line.find("<", position)
        if start < 0:
            break
        end = line.find(">", start + 1)
        if end < 0:
            break
        if start > position:
            yield line[position:start], False
        yield line[start + 1 : end], True
        position = end + 1
    if position < len(line):
        yield line[position:], False


def cue_lines(lines: list[str]) -> tuple[str | None, list[str]]:
    """``(speaker, cleaned text lines)`` of a cue's text lines."""
    voices: list[str] = []
    parts: list[str] = []
    for line in lines:
        if "<" not in line:  # no tag: the line is its text
            text = (html.unescape(line) if "&" in line else line).strip()
            if text:
                parts.append(text)
            continue
        pieces: list[str] = []
        for token, is_tag in _tokens(line):
            if not is_tag:
                pieces.append(token)
                continue
            voice = _VOICE.fullmatch(token)
            if voice is not None:
                name = clean_speaker(html.unescape(voice.group(1)))
                if name is not None and name not in voices:
                    voices.append(name)
        text = html.unescape("".join(pieces)).strip()
        if text:
            parts.append(text)
    return (", ".join(voices) if voices else None), parts


def cue_text(lines: list[str]) -> tuple[str | None, str]:
    """``(speaker, text)`` of a cue's text lines."""
    speaker, parts = cue_lines(lines)
    return speaker, " ".join(parts)


class _Parser:
    def __init__(
        self, speaker_prefix: bool, dedupe_rolling: bool, speaker_carry_ms: int | None
    ) -> None:
        self.utterances = Utterances(
            speaker_prefix=speaker_prefix,
            dedupe_rolling=dedupe_rolling,
            speaker_carry_ms=speaker_carry_ms,
        )
        self.cues = 0
        self.cue: Cue | None = None
        self.identifier_line = 0  # line of a pending cue identifier
        self.skipping = False  # inside a NOTE, STYLE or REGION block

    def start_block(self, number: int, line: str) -> None:
        if "-->" in line:
            self.start_cue(number, line)
        elif _NOTE.match(line) or (self.cues == 0 and _HEADER_BLOCK.match(line)):
            self.skipping = True
        else:
            self.identifier_line = number

    def start_cue(self, number: int, line: str) -> None:
        self.cues += 1
        cue = Cue(f"line {number} (cue {self.cues})")
        usual = _USUAL_TIMINGS.match(line)
        if usual is not None:
            h, m, s, ms, h2, m2, s2, ms2 = map(int, usual.groups())
            cue.set_times(
                ((h * 60 + m) * 60 + s) * 1000 + ms, ((h2 * 60 + m2) * 60 + s2) * 1000 + ms2
            )
            self.cue = cue
            return
        match = _TIMINGS.match(line)
        if match is None:
            raise SourceError(
                f"{cue.where}: invalid cue timings",
                hint="cue timings are '[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt'",
            )
        groups = match.groups()
        cue.set_times(_ms(*groups[:4]), _ms(*groups[4:]))
        self.cue = cue

    def end_cue(self) -> SourceUnit | None:
        cue = self.cue
        self.cue = None
        if cue is None:
            return None
        speaker, lines = cue_lines(cue.lines)
        return self.utterances.add(cue, speaker, lines)

    def feed(self, number: int, line: str) -> SourceUnit | None:
        """Take one line after the header; return the utterance of a cue it completes."""
        if self.cue is not None:
            if not line:
                return self.end_cue()
            if "-->" in line:
                done = self.end_cue()
                self.start_cue(number, line)
                return done
            self.cue.lines.append(line)
        elif self.identifier_line:
            if "-->" not in line:
                raise SourceError(
                    f"line {self.identifier_line}: a block without cue timings",
                    hint="a cue is an optional identifier line, then "
                    "'[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt', then its text",
                )
            self.identifier_line = 0
            self.start_cue(number, line)
        elif self.skipping:
            if not line:
                self.skipping = False
            elif "-->" in line:
                self.skipping = False
                self.start_cue(number, line)
        elif line.strip():  # a line of white space between blocks is skipped
            self.start_block(number, line)
        return None

    def finish(self) -> SourceUnit | None:
        if self.identifier_line:
            raise SourceError(f"line {self.identifier_line}: a block without cue timings")
        return self.end_cue()


def read_webvtt(
    stream: BinaryIO,
    speaker_prefix: bool = False,
    dedupe_rolling: bool = False,
    speaker_carry_ms: int | None = None,
) -> Iterator[SourceUnit]:
    parser = _Parser(speaker_prefix, dedupe_rolling, speaker_carry_ms)
    feed = parser.feed
    signed = False  # the first line (WEBVTT) read
    in_header = True
    for first, block in line_blocks(stream):  # not line by line through a generator
        for number, line in enumerate(block, first):
            if in_header:
                if not signed:
                    if not _SIGNATURE.match(line):
                        break
                    signed = True
                elif not line:
                    in_header = False
                elif "-->" in line:
                    raise SourceError(
                        f"line {number}: cue timings in the WebVTT header",
                        hint="the header ends at the first empty line: put one between the "
                        "WEBVTT line and the first cue",
                    )
                continue
            utterance = feed(number, line)
            if utterance is not None:
                yield utterance
        if not signed:
            break
    if not signed:
        raise SourceError("line 1: a WebVTT file must start with WEBVTT")
    utterance = parser.finish()
    if utterance is not None:
        yield utterance


def sniff_webvtt(head: bytes) -> bool:
    """Whether a file starting with ``head`` starts as WebVTT (``WEBVTT``)."""
    return head.removeprefix(b"\xef\xbb\xbf").startswith(b"WEBVTT")


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_webvtt(stream, options.speaker_prefix, options.dedupe_rolling, options.carry_ms)


FORMAT = TranscriptFormat(
    "webvtt",
    "WebVTT captions (voice tags name speakers)",
    _read,
    speaker_prefix=True,
    dedupe_rolling=True,
    suffixes=(".vtt",),
    sniff=sniff_webvtt,
)

"""``srt``: SubRip subtitles.

A cue is a block of lines: an optional cue number (digits), the timings
``HH:MM:SS,mmm --> HH:MM:SS,mmm`` (``.`` is accepted for ``,``; anything after the end
time, such as ``X1:... Y1:...`` positions, is ignored), then its text lines; blocks are
separated by blank lines. Formatting tags (``<i>``, ``<b>``, ``<u>``, ``<s>``,
``<font ...>`` and their closing tags) and ``{\\an8}``-style override codes are removed;
any other ``<`` is text. The text lines are stripped and joined with one space (subtitle
line breaks are display wrapping). With ``speaker_prefix``, a leading ``Name:`` in the
cue text is the speaker (see ``lines.split_speaker_prefix``); without it, SRT has no
speakers. A cue without text is skipped. Unit IDs ``u000001``, ``u000002``, ... count the
units; the cue numbers written in the file are checked to be digits and otherwise ignored.

Errors name the line and the cue, ``cue`` being its position in the file counted from 1
(not the number written in the file). A text line that is itself cue timings means a
missing blank line and is an error rather than text.

Why not the ``srt`` package (MIT licence, well kept): its ``parse`` reads the whole file
into one string (its regular expression needs it), so it cannot stream, and its parse
error quotes the unmatched transcript text, which an error line here must never carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.canonical_json import MAX_SAFE_INTEGER
from streamer.framework.errors import SourceError
from streamer.importers.document import Utterance, clean_speaker, sequential_unit_id
from streamer.importers.lines import split_speaker_prefix, text_lines

_TIMESTAMP = r"([0-9]+):([0-5][0-9]):([0-5][0-9])[,.]([0-9]{3})"
_TIMINGS = re.compile(rf"[ \t]*{_TIMESTAMP}[ \t]*-->[ \t]*{_TIMESTAMP}(?:[ \t].*)?\Z")
_CUE_NUMBER = re.compile(r"[ \t]*[0-9]+[ \t]*\Z")
_FORMATTING = re.compile(r"</?(?:[ibus]|font)(?:[ \t][^<>]*)?>|\{\\[^{}]*\}", re.IGNORECASE)


def _ms(hours: str, minutes: str, seconds: str, millis: str) -> int:
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis)


class _Cue:
    __slots__ = ("end_ms", "lines", "number", "start_ms", "where")

    def __init__(self, number: int, where: str) -> None:
        self.number = number
        self.where = where
        self.start_ms = 0
        self.end_ms = 0
        self.lines: list[str] = []


def _timings(cue: _Cue, line: str) -> bool:
    match = _TIMINGS.match(line)
    if match is None:
        return False
    groups = match.groups()
    cue.start_ms, cue.end_ms = _ms(*groups[:4]), _ms(*groups[4:])
    if cue.end_ms > MAX_SAFE_INTEGER:
        raise SourceError(f"{cue.where}: a cue time is too large")
    if cue.start_ms > cue.end_ms:
        raise SourceError(f"{cue.where}: the cue ends before it starts")
    return True


def _utterance(cue: _Cue, count: int, speaker_prefix: bool) -> Utterance | None:
    parts = [_FORMATTING.sub("", line).strip() for line in cue.lines]
    text = " ".join(part for part in parts if part)
    speaker = None
    if speaker_prefix:
        speaker, text = split_speaker_prefix(text)
        text = text.strip()
    if not text:
        return None
    return Utterance(
        sequential_unit_id(count + 1),
        text,
        cue.where,
        clean_speaker(speaker),
        cue.start_ms,
        cue.end_ms,
    )


def read_srt(stream: BinaryIO, speaker_prefix: bool = False) -> Iterator[Utterance]:
    cues = 0
    count = 0
    cue: _Cue | None = None
    expecting_timings = False
    number = 0
    for number, line in text_lines(stream):
        blank = not line.strip()
        if cue is None:
            if blank:
                continue
            cues += 1
            cue = _Cue(cues, f"line {number} (cue {cues})")
            if _CUE_NUMBER.match(line):
                expecting_timings = True
            elif not _timings(cue, line):
                raise SourceError(
                    f"{cue.where}: expected a cue number or cue timings",
                    hint="a SubRip cue is a number, a line 'HH:MM:SS,mmm --> HH:MM:SS,mmm' "
                    "and its text, cues separated by blank lines",
                )
        elif expecting_timings:
            cue.where = f"line {number} (cue {cues})"
            if blank or not _timings(cue, line):
                raise SourceError(
                    f"{cue.where}: expected cue timings 'HH:MM:SS,mmm --> HH:MM:SS,mmm' "
                    "after the cue number"
                )
            expecting_timings = False
        elif blank:
            utterance = _utterance(cue, count, speaker_prefix)
            if utterance is not None:
                count += 1
                yield utterance
            cue = None
        elif _TIMINGS.match(line):
            raise SourceError(
                f"line {number} (cue {cues}): cue timings inside the cue text",
                hint="a blank line must separate cues",
            )
        else:
            cue.lines.append(line)
    if cue is not None:
        if expecting_timings:
            raise SourceError(f"line {number} (cue {cues}): the input ends before the cue timings")
        utterance = _utterance(cue, count, speaker_prefix)
        if utterance is not None:
            yield utterance

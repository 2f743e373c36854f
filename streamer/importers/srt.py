"""``srt``: SubRip subtitles.

A cue is a block of lines: an optional cue number (digits), the timings
``HH:MM:SS,mmm --> HH:MM:SS,mmm`` (``.`` is accepted for ``,``; anything after the end
time, such as ``X1:... Y1:...`` positions, is ignored), then its text lines; blocks are
separated by empty lines. The timings that real files carry are accepted too: hours may
be left out (``00:00,000``, minutes and seconds), the fraction may be left out
(``00:00:02``) or have one or two digits, a decimal fraction of a second (``00:01:41,04``
is 101.040 s). A line of white space inside a cue is cue text (it does not end the cue);
between cues it is skipped. Formatting tags (``<i>``, ``<b>``, ``<u>``, ``<s>``,
``<font ...>`` and their closing tags) and ``{\\an8}``-style override codes are removed;
any other ``<`` is text. The SSA line break ``\\N`` is a line break and the SSA hard space
``\\h`` a no-break space (U+00A0, kept inside the text); ``&amp;``, ``&lt;``,
``&gt;`` and ``&nbsp;`` are decoded (after the tags are removed). The text lines are
stripped and joined with one space (subtitle line breaks are display wrapping). With
``speaker_prefix``, a leading ``Name:`` (or ``[Name]:``) in the cue text is the speaker
(see ``lines.split_speaker_prefix``); without it, only WhisperX's ``[SPEAKER_02]:`` is.
A cue without text is skipped. With ``dedupe_rolling``, rolling captions are
deduplicated (``cues``). Unit IDs ``u000001``, ``u000002``, ... count the units; the cue
numbers written in the file are checked to be digits and otherwise ignored.

Errors name the line and the cue, ``cue`` being its position in the file counted from 1
(not the number written in the file). A text line that is itself cue timings means a
missing empty line and is an error rather than text, unless the two lines before it are
a line of white space and a cue number (a line of white space used as the separator).

Why not the ``srt`` package (MIT licence, well kept): its ``parse`` reads the whole file
into one string (its regular expression needs it), so it cannot stream, and its parse
error quotes the unmatched transcript text, which an error line here must never carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors.types import SourceError
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.cues import Cue, Utterances
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.lines import line_blocks

_TIMESTAMP = r"(?:([0-9]+):)?([0-5]?[0-9]):([0-5][0-9])(?:[,.]([0-9]{1,3}))?"
_TIMINGS = re.compile(rf"[ \t]*{_TIMESTAMP}[ \t]*-->[ \t]*{_TIMESTAMP}(?:[ \t].*)?\Z")
_CUE_NUMBER = re.compile(r"[ \t]*[0-9]+[ \t]*\Z")
_FORMATTING = re.compile(r"</?(?:[ibus]|font)(?:[ \t][^<>]*)?>|\{\\[^{}]*\}", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:amp|lt|gt|nbsp);")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": "\u00a0"}


def _millis(fraction: str | None) -> int:
    """A fraction of a second as written (``04`` is 40 ms), in milliseconds."""
    return int(fraction.ljust(3, "0")) if fraction else 0


# The timings most files write, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``: where ``_TIMINGS``
# matches them it finds the same groups, read here without its optional parts.
_USUAL_TIMINGS = re.compile(
    r"([0-9]{2}):([0-5][0-9]):([0-5][0-9]),([0-9]{3}) --> "
    r"([0-9]{2}):([0-5][0-9]):([0-5][0-9]),([0-9]{3})\Z"
)


def _timings(cue: Cue, line: str) -> bool:
    usual = _USUAL_TIMINGS.match(line)
    if usual is not None:
        h, m, s, ms, h2, m2, s2, ms2 = map(int, usual.groups())
        cue.set_times(((h * 60 + m) * 60 + s) * 1000 + ms, ((h2 * 60 + m2) * 60 + s2) * 1000 + ms2)
        return True
    match = _TIMINGS.match(line)
    if match is None:
        return False
    hours, minutes, seconds, fraction, hours2, minutes2, seconds2, fraction2 = match.groups()
    cue.set_times(
        ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + _millis(fraction),
        ((int(hours2 or 0) * 60 + int(minutes2)) * 60 + int(seconds2)) * 1000 + _millis(fraction2),
    )
    return True


def cue_lines(lines: list[str]) -> list[str]:
    """A cue's text lines, cleaned: formatting removed, ``\\N`` breaks, entities
    decoded, stripped, empty ones dropped."""
    out: list[str] = []
    for line in lines:
        if "<" in line or "{" in line:
            line = _FORMATTING.sub("", line)
        if "\\h" in line:
            line = line.replace("\\h", "\u00a0")
        for part in line.split("\\N") if "\\N" in line else (line,):
            if "&" in part:
                part = _ENTITY.sub(_entity, part)
            text = part.strip()
            if text:
                out.append(text)
    return out


def _entity(match: re.Match[str]) -> str:
    return _ENTITIES[match.group()]


def read_srt(
    stream: BinaryIO,
    speaker_prefix: bool = False,
    dedupe_rolling: bool = False,
    speaker_carry_ms: int | None = None,
) -> Iterator[SourceUnit]:
    utterances = Utterances(
        speaker_prefix=speaker_prefix,
        dedupe_rolling=dedupe_rolling,
        speaker_carry_ms=speaker_carry_ms,
    )
    cues = 0
    cue: Cue | None = None
    expecting_timings = False
    number = 0
    for first, block in line_blocks(stream):  # not line by line through a generator
        for number, line in enumerate(block, first):
            if cue is None:
                if not line.strip():
                    continue
                cues += 1
                cue, expecting_timings = _opened(line, f"line {number} (cue {cues})")
            elif expecting_timings:
                _numbered_timings(cue, line, f"line {number} (cue {cues})")
                expecting_timings = False
            elif not line:
                utterance = utterances.add(cue, None, cue_lines(cue.lines))
                if utterance is not None:
                    yield utterance
                cue = None
            elif "-->" in line and _TIMINGS.match(line):
                _end_at_separator(cue.lines, f"line {number} (cue {cues})")
                utterance = utterances.add(cue, None, cue_lines(cue.lines))
                if utterance is not None:
                    yield utterance
                cues += 1
                cue = Cue(f"line {number} (cue {cues})")
                _timings(cue, line)
            else:
                cue.lines.append(line)
    if cue is not None:
        if expecting_timings:
            raise SourceError(f"line {number} (cue {cues}): the input ends before the cue timings")
        yield from _last(utterances, cue)


def _last(utterances: Utterances, cue: Cue) -> Iterator[SourceUnit]:
    """The utterance of the cue the input ends in (no empty line after it)."""
    utterance = utterances.add(cue, None, cue_lines(cue.lines))
    if utterance is not None:
        yield utterance


def _opened(line: str, where: str) -> tuple[Cue, bool]:
    """A cue from its first line (at ``where``), and whether its timings come next (the
    line is its cue number)."""
    cue = Cue(where)
    if _CUE_NUMBER.match(line):
        return cue, True
    if not _timings(cue, line):
        raise SourceError(
            f"{where}: expected a cue number or cue timings",
            hint="a SubRip cue is a number, a line 'HH:MM:SS,mmm --> HH:MM:SS,mmm' "
            "and its text, cues separated by empty lines",
        )
    return cue, False


def _numbered_timings(cue: Cue, line: str, where: str) -> None:
    """The timings of a numbered cue, on the line after its number (at ``where``)."""
    cue.where = where
    if not line or not _timings(cue, line):
        raise SourceError(
            f"{where}: expected cue timings 'HH:MM:SS,mmm --> HH:MM:SS,mmm' after the cue number"
        )


def _end_at_separator(lines: list[str], where: str) -> None:
    """Cue timings (at ``where``) inside a cue's text ``lines``: the two lines before them
    must be a line of white space and a cue number (a line of white space separated the
    cues), taken off the text; else an empty line is missing."""
    if len(lines) >= 2 and not lines[-2].strip() and _CUE_NUMBER.match(lines[-1]):
        del lines[-2:]
        return
    raise SourceError(
        f"{where}: cue timings inside the cue text",
        hint="an empty line must separate cues",
    )


_SRT_START = re.compile(rb"\A[ \t]*[0-9]+[ \t]*\r?\n[ \t]*(?:[0-9]+:)?[0-9]{1,2}:[0-9]{2}[,.]")


def sniff_srt(head: bytes) -> bool:
    """Whether a file starting with ``head`` starts as SubRip (a cue number, then timings)."""
    return _SRT_START.match(head.removeprefix(b"\xef\xbb\xbf").lstrip(b"\r\n")) is not None


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_srt(stream, options.speaker_prefix, options.dedupe_rolling, options.carry_ms)


FORMAT = TranscriptFormat(
    "srt",
    "SubRip subtitles",
    _read,
    speaker_prefix=True,
    dedupe_rolling=True,
    suffixes=(".srt",),
    sniff=sniff_srt,
)

"""What SubRip and WebVTT share: a cue, its timings' checks, and turning cues into
utterances (speaker prefixes, empty cues skipped, rolling captions deduplicated).

Rolling captions (``dedupe_rolling``): YouTube's automatic captions, as youtube-dl and
yt-dlp save them, show each phrase two or three times: a cue adds a new line below the
previous one, a cue of 10 ms repeats it, the next cue shows it again as its top line.
With ``dedupe_rolling``, a cue's first lines that repeat the previous cue's last lines
are dropped, and what is left (its new lines) is the utterance, with the cue's times: the
phrase appears once, with the times of the cue in which it was spoken; a cue with
nothing new gives no utterance.

Speakers carried (``speaker_carry_ms``, with ``speaker_prefix``): podcast and meeting
captions label a speaker on the first cue of a turn only. A cue without a label (neither
``<v Name>`` markup nor a ``Name:`` prefix) then keeps the last label read, unless the
silence since the previous cue's end is longer than ``speaker_carry_ms`` (a gap that long
may be a new turn: the cue gets no speaker, and nothing is carried until the next label).
Cues are compared in file order; a cue starting before the previous one ended (overlap)
is no gap.
"""

from __future__ import annotations

from streamer.framework.errors.types import SourceError
from streamer.framework.json.canonical import MAX_SAFE_INTEGER
from streamer.framework.source.source_unit import SourceUnit
from streamer.importers.document import clean_speaker, utterance
from streamer.importers.lines import split_speaker_prefix, split_whisperx_prefix


class Cue:
    """A cue being read: where it starts (for errors), its times, its text lines."""

    __slots__ = ("end_ms", "lines", "start_ms", "where")

    def __init__(self, where: str, start_ms: int = 0, end_ms: int = 0) -> None:
        self.where = where
        self.start_ms = start_ms
        self.end_ms = end_ms
        self.lines: list[str] = []

    def set_times(self, start_ms: int, end_ms: int) -> None:
        if end_ms > MAX_SAFE_INTEGER:
            raise SourceError(f"{self.where}: a cue time is too large")
        if start_ms > end_ms:
            raise SourceError(f"{self.where}: the cue ends before it starts")
        self.start_ms, self.end_ms = start_ms, end_ms


class Utterances:
    """Turns finished cues into utterances, numbered ``u000001``, ``u000002``, ...

    ``add(cue, speaker, lines)`` takes the cue's cleaned text lines (stripped, markup
    removed, empty ones dropped) and the speaker its markup named, if any, and returns
    the cue's utterance (``None`` when it has no text).
    """

    def __init__(
        self,
        *,
        speaker_prefix: bool,
        dedupe_rolling: bool,
        speaker_carry_ms: int | None = None,
    ) -> None:
        self.speaker_prefix = speaker_prefix
        self.dedupe_rolling = dedupe_rolling
        self.speaker_carry_ms = speaker_carry_ms if speaker_prefix else None
        self._carried: str | None = None  # the label a cue without one continues
        self._last_end_ms: int | None = None  # the end of the previous cue with text
        self.count = 0
        self._previous: list[str] = []  # the previous cue's lines (rolling captions)

    def add(self, cue: Cue, speaker: str | None, lines: list[str]) -> SourceUnit | None:
        if self.dedupe_rolling:
            previous, self._previous = self._previous, lines
            lines = lines[_overlap(previous, lines) :]
        text = " ".join(lines)
        if speaker is None:
            if self.speaker_prefix:
                speaker, text = split_speaker_prefix(text)
            else:
                speaker, text = split_whisperx_prefix(text)
            text = text.strip()
        if not text:
            return None
        if self.speaker_carry_ms is not None:
            speaker = self._carry(cue, speaker)
        self.count += 1
        return utterance(
            f"u{self.count:06d}", text, clean_speaker(speaker), cue.start_ms, cue.end_ms
        )

    def _carry(self, cue: Cue, speaker: str | None) -> str | None:
        last_end, self._last_end_ms = self._last_end_ms, cue.end_ms
        if speaker is not None:
            self._carried = speaker
            return speaker
        assert self.speaker_carry_ms is not None
        if last_end is not None and cue.start_ms - last_end > self.speaker_carry_ms:
            self._carried = None
        return self._carried


def _overlap(previous: list[str], lines: list[str]) -> int:
    """The length of the longest run of ``lines``' first lines that ends ``previous``."""
    for size in range(min(len(previous), len(lines)), 0, -1):
        if previous[-size:] == lines[:size]:
            return size
    return 0

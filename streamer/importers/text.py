"""``text``: plain text, one utterance per line, ``SPEAKER: text``.

A line that starts with a speaker prefix (a name of 1 to 40 characters without a colon,
then ``:`` and white space) gives that speaker; any other line has no speaker. Lines that
are blank, or whose text after the prefix is empty, are skipped. Text is stripped of
surrounding white space. Unit IDs ``u000001``, ``u000002``, ... count the units, not the
lines. No timestamps. The only malformed input is a line that is not valid UTF-8.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.source.source_unit import SourceUnit, UnitMetadata
from streamer.importers.document import UNIT_KIND
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.lines import line_blocks, split_speaker_prefix


def read_text(stream: BinaryIO) -> Iterator[SourceUnit]:
    count = 0
    for _, lines in line_blocks(stream):
        for line in lines:
            speaker, text = split_speaker_prefix(line.strip())
            text = text.strip()
            if not text:
                continue
            count += 1
            if speaker is not None:  # as clean_speaker: only a bracketed name may need it
                speaker = speaker.strip()
                if speaker:
                    yield SourceUnit(
                        f"u{count:06d}", UNIT_KIND, text, metadata=UnitMetadata(speaker)
                    )
                    continue
            yield SourceUnit(f"u{count:06d}", UNIT_KIND, text)


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_text(stream)


FORMAT = TranscriptFormat(
    "text",
    "plain text, one utterance a line ('SPEAKER: text')",
    _read,
    suffixes=(".txt",),
    speaker_prefix_hint="the text format always reads 'SPEAKER: text'",
)

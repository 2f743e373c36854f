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

from streamer.importers.document import Utterance
from streamer.importers.lines import line_blocks, split_speaker_prefix


def read_text(stream: BinaryIO) -> Iterator[Utterance]:
    count = 0
    for first, lines in line_blocks(stream):
        for number, line in enumerate(lines, first):
            speaker, text = split_speaker_prefix(line.strip())
            text = text.strip()
            if not text:
                continue
            if speaker is not None:  # as clean_speaker: only a bracketed name may need it
                speaker = speaker.strip() or None
            count += 1
            yield Utterance(f"u{count:06d}", text, f"line {number}", speaker)

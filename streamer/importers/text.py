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

from streamer.importers.document import Utterance, clean_speaker, sequential_unit_id
from streamer.importers.lines import split_speaker_prefix, text_lines


def read_text(stream: BinaryIO) -> Iterator[Utterance]:
    count = 0
    for number, line in text_lines(stream):
        speaker, text = split_speaker_prefix(line.strip())
        text = text.strip()
        if not text:
            continue
        count += 1
        yield Utterance(sequential_unit_id(count), text, f"line {number}", clean_speaker(speaker))

"""``crd3``: a cleaned episode of the Critical Role D&D dataset (CRD3).

``{"METADATA": {...}, "TURNS": [{"NAMES": [...], "UTTERANCES": [...], "NUMBER": n}]}``.
``TURNS`` is streamed with ijson, one turn at a time; ``METADATA`` (wiki text) is skipped
and never published.

Units: one per turn (``unit="turn"``), text the turn's utterances joined with one space
(CRD3 utterances are caption lines cut mid-sentence), unit ID ``t`` + the turn's NUMBER in
five digits (``t00042``) so that CRD3's own turn citations (its summary alignments) map to
unit IDs directly; or one per utterance (``unit="line"``), unit ID ``t00042-01``,
``t00042-02``, ... (the utterance's position in its turn, from 1, two digits at least).
Speaker: the turn's names joined with ``", "``. No timestamps. In turn mode every turn
gives a unit, even one without utterances (its text is empty), so every turn number stays
citable; in line mode a turn without utterances gives none. Turn numbers must be
integers >= 0, increasing in transcript order (the dataset numbers them 0, 1, 2, ...):
that keeps unit IDs unique without remembering them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Literal

from streamer.framework.errors import SourceError
from streamer.importers.document import Utterance, clean_speaker
from streamer.importers.json_items import array_items

Unit = Literal["turn", "line"]


def turn_unit_id(number: int) -> str:
    return f"t{number:05d}"


def line_unit_id(number: int, line: int) -> str:
    return f"t{number:05d}-{line:02d}"


def _strings(value: Any, path: str) -> list[str]:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise SourceError(f"{path} must be a list of strings")
    return value


def read_crd3(stream: BinaryIO, unit: Unit = "turn") -> Iterator[Utterance]:
    previous = -1
    for index, turn in array_items(stream, "TURNS"):
        where = f"$.TURNS[{index}]"
        if type(turn) is not dict:
            raise SourceError(f"{where} must be an object")
        for member in ("NAMES", "UTTERANCES", "NUMBER"):
            if member not in turn:
                raise SourceError(f"{where}.{member} is required")
        number = turn["NUMBER"]
        if type(number) is not int or number < 0:
            raise SourceError(f"{where}.NUMBER must be an integer >= 0")
        if number <= previous:
            raise SourceError(
                f"{where}.NUMBER must be greater than the previous turn's",
                hint="CRD3 numbers its turns in transcript order",
            )
        previous = number
        names = _strings(turn["NAMES"], f"{where}.NAMES")
        utterances = _strings(turn["UTTERANCES"], f"{where}.UTTERANCES")
        speaker = clean_speaker(", ".join(name.strip() for name in names if name.strip()))
        if unit == "turn":
            text = " ".join(line.strip() for line in utterances if line.strip())
            yield Utterance(turn_unit_id(number), text, where, speaker)
        else:
            for line, utterance in enumerate(utterances, 1):
                yield Utterance(
                    line_unit_id(number, line),
                    utterance.strip(),
                    f"{where}.UTTERANCES[{line - 1}]",
                    speaker,
                )

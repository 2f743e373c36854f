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

import functools
import operator
from collections.abc import Generator, Iterator
from typing import IO, Annotated, Any, BinaryIO, Literal

import msgspec
from msgspec import UNSET

from streamer.framework.errors.types import SourceError
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata
from streamer.importers.document import UNIT_KIND, encode_batch, utterance
from streamer.importers.formats import ImportOptions, TranscriptFormat
from streamer.importers.json_items import array_run_texts, array_runs, decode_run, typed_runs
from streamer.importers.parallel_import import Converted, write_runs

Unit = Literal["turn", "line"]


class _Turn(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A turn as the fast path takes it: these members and no other."""

    NAMES: list[str]
    UTTERANCES: list[str]
    NUMBER: Annotated[int, msgspec.Meta(ge=0)]


def _turn_strings(turns: list[_Turn]) -> int:
    """The member names and string values the turns were decoded from."""
    return 3 * len(turns) + sum(len(turn.NAMES) + len(turn.UTTERANCES) for turn in turns)


def turn_unit_id(number: int) -> str:
    return f"t{number:05d}"


def line_unit_id(number: int, line: int) -> str:
    return f"t{number:05d}-{line:02d}"


def _stripped(value: Any, path: str) -> list[str]:
    """The strings of the list ``value``, each stripped of white space."""
    if type(value) is list:
        try:
            return list(map(str.strip, value))
        except TypeError:  # an item is not a string
            pass
    raise SourceError(f"{path} must be a list of strings")


TURN_KINDS = ((_Turn, _turn_strings),)  # the fast path's decoding of the runs of TURNS


def read_crd3(stream: BinaryIO, unit: Unit = "turn") -> Iterator[SourceUnit]:
    """A run of turns decoded as ``_Turn`` with increasing numbers gives its units in bulk;
    any other run is read turn by turn, which raises the located error of the first turn
    at fault."""
    previous = -1
    for start, items in array_runs(stream, "TURNS", TURN_KINDS):
        bulk = _bulk_units(items, previous, unit)
        if bulk is not None:
            previous = items[-1].NUMBER
            yield from bulk
            continue
        previous = yield from _checked_units(items, start, previous, unit)


def run_units(items: list[Any], unit: Unit) -> tuple[list[SourceUnit], int, int]:
    """The units of a run of turns (``array_runs``'s items) read as if it came first, and
    the numbers of its first and last turns; the error of ``read_crd3`` (its location
    that of the run's turns, from 0) when a turn is at fault."""
    units = _bulk_units(items, -1, unit)
    if units is not None:
        return units, items[0].NUMBER, items[-1].NUMBER
    units = list(_checked_units(items, 0, -1, unit))  # every turn checked: numbers are ints
    return units, _number(items[0]), _number(items[-1])


def _number(turn: Any) -> int:
    return turn.NUMBER if type(turn) is _Turn else int(turn["NUMBER"])


def _bulk_units(items: list[Any], previous: int, unit: Unit) -> list[SourceUnit] | None:
    """The units of a run decoded as ``_Turn`` whose numbers increase after ``previous``,
    built in bulk; ``None`` for any other run."""
    if type(items[0]) is not _Turn:
        return None
    numbers = [turn.NUMBER for turn in items]
    if numbers[0] > previous and all(map(operator.lt, numbers, numbers[1:])):
        return _turn_units(items) if unit == "turn" else _line_units(items)
    return None


def _checked_units(
    items: list[Any], start: int, previous: int, unit: Unit
) -> Generator[SourceUnit, None, int]:
    """The units of a run (the first at ``$.TURNS[start]``) read turn by turn, which
    raises the located error of the first turn at fault; returns the last number."""
    if type(items[0]) is _Turn:
        items = [msgspec.to_builtins(turn) for turn in items]
    for index, turn in enumerate(items, start):
        previous = yield from _read_turn(turn, f"$.TURNS[{index}]", previous, unit)
    return previous


def _turn_units(turns: list[_Turn]) -> list[SourceUnit]:
    """One unit a turn. A list of one string (nearly every turn's names, half the turns'
    utterances) is only stripped: what joining its non-empty stripped items gives."""
    strip = str.strip
    units: list[SourceUnit] = []
    append = units.append
    for turn in turns:
        lines, names = turn.UTTERANCES, turn.NAMES
        text = lines[0].strip() if len(lines) == 1 else " ".join(filter(None, map(strip, lines)))
        speaker = (
            names[0].strip() if len(names) == 1 else ", ".join(filter(None, map(strip, names)))
        )
        append(
            SourceUnit(
                f"t{turn.NUMBER:05d}",
                UNIT_KIND,
                text,
                UNSET,  # source_ref
                UnitMetadata(speaker) if speaker else UNSET,
            )
        )
    return units


def _line_units(turns: list[_Turn]) -> list[SourceUnit]:
    strip = str.strip
    units: list[SourceUnit] = []
    for turn in turns:
        speaker = ", ".join(filter(None, map(strip, turn.NAMES))) or None
        number = turn.NUMBER
        for line, text in enumerate(map(strip, turn.UTTERANCES), 1):
            units.append(utterance(f"t{number:05d}-{line:02d}", text, speaker))
    return units


def _read_turn(
    turn: Any, where: str, previous: int, unit: Unit
) -> Generator[SourceUnit, None, int]:
    """The units of one turn, checked; returns its number."""
    if type(turn) is not dict:
        raise SourceError(f"{where} must be an object")
    try:
        names, utterances, number = turn["NAMES"], turn["UTTERANCES"], turn["NUMBER"]
    except KeyError:
        missing = next(name for name in ("NAMES", "UTTERANCES", "NUMBER") if name not in turn)
        raise SourceError(f"{where}.{missing} is required") from None
    if type(number) is not int or number < 0:
        raise SourceError(f"{where}.NUMBER must be an integer >= 0")
    if number <= previous:
        raise SourceError(
            f"{where}.NUMBER must be greater than the previous turn's",
            hint="CRD3 numbers its turns in transcript order",
        )
    # the names, stripped, without the empty ones: nothing to strip around them
    speaker = ", ".join(filter(None, _stripped(names, f"{where}.NAMES"))) or None
    lines = _stripped(utterances, f"{where}.UTTERANCES")
    if unit == "turn":
        yield utterance(f"t{number:05d}", " ".join(filter(None, lines)), speaker)
    else:
        for line, text in enumerate(lines, 1):
            yield utterance(f"t{number:05d}-{line:02d}", text, speaker)
    return number


def _read(stream: BinaryIO, options: ImportOptions) -> Iterator[SourceUnit]:
    return read_crd3(stream, "line" if options.unit == "line" else "turn")


RUN_READ_SIZE = 1 << 19  # the bytes of TURNS read at a time by --jobs: about a run
_typed = typed_runs(TURN_KINDS)


def _convert(unit: Unit, run: bytearray) -> Converted:
    """A run of turns (``array_run_texts``) decoded, its units built, checked and encoded."""
    items = decode_run(_typed, bytes(run))
    if items is None:
        raise SourceError("the run is read by the reference path")
    units, first, last = run_units(items, unit)
    return encode_batch(units), first, last


def _write_parallel(
    document_id: str, stream: BinaryIO, options: ImportOptions, jobs: int, out: IO[bytes]
) -> tuple[str, int] | None:
    """``--jobs N``: the runs of TURNS converted by N processes (``parallel_import``)."""
    unit: Unit = "line" if options.unit == "line" else "turn"
    runs = array_run_texts(stream, "TURNS", TURN_KINDS, RUN_READ_SIZE)
    return write_runs(document_id, runs, functools.partial(_convert, unit), jobs, out)


FORMAT = TranscriptFormat(
    "crd3",
    "a Critical Role Dataset episode (JSON): one unit a turn, or a line with --unit line",
    _read,
    units=("turn", "line"),
    suffixes=(".json",),
    json_member="TURNS",
    parallel=_write_parallel,
)

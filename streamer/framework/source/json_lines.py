"""The units of a JSON Lines source document: blocks of whole lines, each parsed in one call.

``line_blocks`` reads the lines after the header in blocks of whole lines, copying the
source's bytes once. ``JsonLinesParser`` decodes and type-checks each block with msgspec
in one call (``source.unit_batches``); a block with any line that breaks the contract is parsed
again line by line, to locate the problem. Blank lines are accepted only at the end of the
document; repeated member names are refused (counted, see ``units.has_duplicate_members``);
every error names a line, never content.

The same parser runs in the worker processes of ``--jobs`` (``source.parallel``), which is
why a block's parse depends on the lines before it only through ``blank``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from streamer.framework.errors.types import SourceError
from streamer.framework.json.byte_scan import duplicate_message, first_duplicate
from streamer.framework.source.source_unit import SourceUnit
from streamer.framework.source.unit_batches import (
    LineMarks,
    canonical_units,
    convert_units,
    decode_lines,
    encode_canonical,
    has_duplicate_members,
)

ParsedBlock = tuple[list[SourceUnit], bytes, list[str]]  # units, canonical lines, unit IDs


class JsonLinesParser:
    """Parses blocks of complete JSON Lines into validated batches, in document order.

    Each line of a block is decoded and validated as one unit by msgspec (a JSON line
    cannot hold a raw newline, so each newline separates two lines). ``first_line`` is the
    number of the first line of the first block; ``blank``, the first blank line already
    seen (0: none), which no unit may follow.
    """

    def __init__(self, first_line: int, blank: int = 0, marks: LineMarks | None = None) -> None:
        self._next_line = first_line
        self._blank = blank
        self._marks = marks
        self._encode = encode_canonical if marks is None else marks.encode

    @property
    def next_line(self) -> int:
        """The number of the first line of the next block."""
        return self._next_line

    @property
    def blank(self) -> int:
        """The first blank line seen (0: none); only blank lines may follow it."""
        return self._blank

    def parse(self, block: bytes | memoryview) -> Iterator[ParsedBlock]:
        """Parse complete lines (the last one's newline is optional)."""
        first = self._next_line
        where = _line_from(first)
        unended = block[-1] != 0x0A  # a newline
        units = None if self._blank else decode_lines(block)
        checked = problem = None
        if units:
            try:
                checked = canonical_units(units, where, self._encode)
            except SourceError as error:
                problem = error  # raised below, once the lines are known to be numbered right
            else:
                lines, ids, dropped = checked
                if len(block) == len(lines) - unended + dropped.size:
                    # each line one unit as compact as its canonical JSON: no blank line and
                    # no repeated member (``has_duplicate_members``), nothing more to count
                    self._next_line += len(units)
                    if self._marks is not None:
                        self._marks.commit(len(units))
                    yield units, lines, ids
                    return
        block = bytes(block)  # the exact way: counted, split and searched as bytes
        newlines = block.count(b"\n")
        count = newlines + unended
        self._next_line += count
        if units is None or len(units) != count:  # a blank line or a bad one: locate it
            raw_lines = block.split(b"\n")[:count]
            units = convert_units(self._line_by_line(raw_lines, first), where)
            checked = problem = None
        if problem is not None:
            raise problem
        if units:
            if checked is None:
                checked = canonical_units(units, where, self._encode)
            lines, ids, dropped = checked
            if has_duplicate_members(block, newlines, lines, len(units), dropped):
                _locate_duplicate_line(block, first)  # when there is one
            if self._marks is not None:
                self._marks.commit(len(units))
            yield units, lines, ids

    def _line_by_line(self, lines: list[bytes], first: int) -> list[Any]:
        objects: list[Any] = []
        for number, line in enumerate(lines, first):
            if not line.strip():
                self._blank = self._blank or number
                continue
            if self._blank:
                raise SourceError(f"line {self._blank}: empty line inside JSON Lines")
            try:
                objects.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                raise SourceError(f"line {number}: not valid {_problem(line)}") from None
        return objects


def line_blocks(raw: Any, block_size: int) -> Iterator[bytes | memoryview]:
    """The lines read from the raw stream ``raw`` (``readinto``), in blocks of whole lines
    of about ``block_size`` bytes (the last line's newline is optional at the end).

    Each read goes straight into a new buffer after what the last one left of an
    unfinished line, and a block is a view of that buffer up to its last newline: the
    source's bytes are copied once (a buffered read and a join copied them twice more).
    A line longer than a read doubles the next one, so a long line costs linear time.
    """
    carry = b""  # the start of a line the last buffer did not finish
    want = block_size
    while True:
        buffer = bytearray(len(carry) + want)
        buffer[: len(carry)] = carry
        view = memoryview(buffer)
        filled = len(carry)
        while filled < len(buffer):
            got = raw.readinto(view[filled:])
            if not got:
                break
            filled += got
            if filled >= len(carry) + block_size // 2:  # enough for a block: go on
                break
        if filled == len(carry):  # the end of the source
            if carry:
                yield carry
            return
        end = buffer.rfind(b"\n", len(carry), filled) + 1
        if end == 0:  # no line ends here yet: read on, twice as much
            carry, want = bytes(view[:filled]), max(block_size, 2 * filled)
            continue
        yield view[:end]
        carry, want = bytes(view[end:filled]), block_size


def _locate_duplicate_line(block: bytes, first: int) -> None:
    for number, line in enumerate(block.split(b"\n"), first):
        if line.strip():
            found = first_duplicate(line, f"line {number}")
            if found is not None:
                raise SourceError(duplicate_message(*found))


def _line_from(first: int) -> Callable[[int], str]:
    return lambda index: f"line {first + index}"


def _problem(line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return "UTF-8"
    return "JSON"

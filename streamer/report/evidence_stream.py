"""The evidence-context document of a bundle, streamed: never held whole in memory.

ijson reads the document in several lock-step passes over the same file, each building
only what its prefix selects: the header members (``framework.json_events.first_item``),
then for each context its end unit ID and its references (small), and the context's units
one at a time. The document has been validated first, so each context ends with the unit
its ``end_unit_id`` names and no unit ID repeats: the units of a context are those up to
that one. (Validation's one pass, ``json_events.stream``, sees the members of a context in
document order; the report needs a context's head before its units, whatever their order,
without holding the units: hence the passes.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson

from streamer.framework.errors import InputError
from streamer.framework.json_events import first_item
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE

UnitRow = tuple[str, str, str, str | None, int | None, int | None]


@dataclass(frozen=True)
class EvidenceHeader:
    window_units: int
    lanes: list[str]


Reference = tuple[str, str, list[str]]  # (start_unit_id, end_unit_id, lane_ids)


@dataclass(frozen=True)
class ContextHead:
    """A context's references: ``(start_unit_id, end_unit_id, lane_ids)`` each."""

    end_unit_id: str
    references: list[Reference]


def _first(path: Path, prefix: str, buffer_size: int) -> Any:
    with path.open("rb") as file:
        try:
            return first_item(file, prefix, buffer_size)
        except KeyError:
            raise InputError(f"{path.name}: {prefix} is missing") from None


def read_header(path: Path, buffer_size: int = DEFAULT_BUFFER_SIZE) -> EvidenceHeader:
    return EvidenceHeader(
        int(_first(path, "window_units", buffer_size)), list(_first(path, "lanes", buffer_size))
    )


def unit_row(unit: dict[str, Any]) -> UnitRow:
    """A published unit as the page's row: ID, kind, text, speaker, start and end (ms)."""
    metadata = unit.get("metadata") or {}
    return (
        unit["unit_id"],
        unit["kind"],
        unit["text"],
        metadata.get("speaker"),
        metadata.get("start_ms"),
        metadata.get("end_ms"),
    )


def _units_until(units: Iterator[Any], end_unit_id: str, path: Path) -> Iterator[UnitRow]:
    for unit in units:
        row = unit_row(unit)
        yield row
        if row[0] == end_unit_id:
            return
    raise InputError(f"{path.name}: a context's units end before its end_unit_id")


@contextlib.contextmanager
def contexts(
    path: Path, buffer_size: int = DEFAULT_BUFFER_SIZE
) -> Iterator[Iterator[tuple[ContextHead, Iterator[UnitRow]]]]:
    """The contexts of the evidence document at ``path`` in order: each head with an
    iterator of its units, to be consumed before the next context is taken."""
    with contextlib.ExitStack() as files:
        opened = [files.enter_context(path.open("rb")) for _ in range(3)]
        ends = ijson.items(opened[0], "contexts.item.end_unit_id", buf_size=buffer_size)
        references = ijson.items(opened[1], "contexts.item.references", buf_size=buffer_size)
        units = iter(ijson.items(opened[2], "contexts.item.units.item", buf_size=buffer_size))

        def walk() -> Iterator[tuple[ContextHead, Iterator[UnitRow]]]:
            for end, cited in zip(ends, references, strict=True):
                head = ContextHead(
                    end,
                    [
                        (
                            reference["source_ref"]["start_unit_id"],
                            reference["source_ref"]["end_unit_id"],
                            list(reference["lane_ids"]),
                        )
                        for reference in cited
                    ],
                )
                rows = _units_until(units, end, path)
                yield head, rows
                for _ in rows:  # whatever the caller left
                    pass

        yield walk()


def speakers(path: Path, buffer_size: int = DEFAULT_BUFFER_SIZE) -> set[str]:
    """The speakers of the evidence document's units, as written (one pass)."""
    with path.open("rb") as file:
        found = ijson.items(file, "contexts.item.units.item.metadata.speaker", buf_size=buffer_size)
        return set(found)


def session_units(chunk_map: Path, buffer_size: int = DEFAULT_BUFFER_SIZE) -> int | None:
    """The source document's unit count, from its (validated) chunk map: chunk ``k`` starts
    at unit ``k * (max_units - overlap_units)``; ``None`` for a map without chunks."""
    chunking = _first(chunk_map, "chunking", buffer_size)
    step = int(chunking["max_units"]) - int(chunking["overlap_units"])
    chunks, last = 0, 0
    with chunk_map.open("rb") as file:
        for count in ijson.items(file, "chunks.item.unit_count", buf_size=buffer_size):
            chunks, last = chunks + 1, int(count)
    return None if chunks == 0 else (chunks - 1) * step + last

"""``chunk-map.json``: its schema and descriptor, chunk IDs in sequence, chunk sizes as its
chunking says; and the source positions it fixes (each chunk's first and last unit).

The chunk map of a multi-GB transcript has one entry per ``max_units - overlap_units``
units (hundreds of thousands), so its entries are streamed too: cut into runs as they are
read (``json.events.stream`` with ``runs``), each run decoded at once by a msgspec struct;
a run that does not decode and the rest of the array are read by ijson, one entry an item,
and only an entry that fails the struct is checked by jsonschema against ``$defs/chunk``
(for the located message). The rest of the document is checked by jsonschema whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from streamer.framework.chunking.chunker import chunk_id
from streamer.framework.json.events import ITEM, RUN, JsonError, item_events, stream
from streamer.framework.source.source_unit import NonEmpty
from streamer.output.bundle_documents import CHUNK_MAP_FILE, CHUNK_MAP_SCHEMA
from streamer.validation.bundle_files import Unreadable, open_document
from streamer.validation.bundle_report import BundleReport
from streamer.validation.index_check import Described, check_descriptor
from streamer.validation.schema_rules import schema_of, schema_problems
from streamer.validation.skeleton import Skeleton

_ARRAY = "chunks"
_ITEMS = f"{_ARRAY}.item"


class ChunkEntry(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One entry of ``$.chunks``, as its schema states it."""

    chunk_id: Annotated[str, msgspec.Meta(pattern="^chunk-[0-9]{6,}$")]
    start_unit_id: NonEmpty
    end_unit_id: NonEmpty
    unit_count: Annotated[int, msgspec.Meta(ge=1)]


@dataclass
class Anchors:
    """Source positions the chunk map fixes: each chunk's first and last unit."""

    positions: dict[str, int] = field(default_factory=dict)
    last_position: int = -1


_decode = msgspec.json.Decoder(list[ChunkEntry]).decode


def _decode_entries(text: bytes) -> list[ChunkEntry] | None:
    """A run of entries (a JSON array text) decoded at once by ``ChunkEntry``; ``None``
    when any is not one (the run is then read as items, for the located problem)."""
    try:
        return _decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _entry(item: Any, path: str, schema_lines: list[str]) -> ChunkEntry | None:
    try:
        return msgspec.convert(item, ChunkEntry)
    except msgspec.ValidationError:
        pass
    lines = schema_problems(item, CHUNK_MAP_SCHEMA.id, definition="chunk", at=path)
    schema_lines.extend(lines)
    if lines:
        return None
    item = {**item, "unit_count": int(item["unit_count"])}  # 5.0: an integer to the schema
    return ChunkEntry(**item)


class _Entries:
    """Checks the entries in order, given ``$.chunking``; problems of an entry are known
    once the next one (or the end) shows whether it is the last."""

    def __init__(self, max_units: int, overlap_units: int) -> None:
        self.max_units = max_units
        self.step = max_units - overlap_units
        self.sound = self.step > 0
        self.lines: list[str] = []
        if not self.sound:
            self.lines.append("$.chunking.overlap_units must be below max_units")
        self.anchors = Anchors()
        self.pending: tuple[str, int] | None = None  # a full-size check waiting for the next
        self.count = 0

    def add(self, entry: ChunkEntry) -> None:
        index, path = self.count, f"$.chunks[{self.count}]"
        self.count += 1
        if self.pending is not None:
            self.lines.append(f"{self.pending[0]}.unit_count does not follow $.chunking")
            self.pending = None
            self.sound = False
        if entry.chunk_id != chunk_id(index):
            self.lines.append(f"{path}.chunk_id is not {chunk_id(index)}")
            self.sound = False
        count = entry.unit_count
        if count > self.max_units:
            self.lines.append(f"{path}.unit_count does not follow $.chunking")
            self.sound = False
        elif count != self.max_units:
            self.pending = (path, index)  # fine only if this is the last chunk
        if self.sound:
            start = index * self.step
            positions = self.anchors.positions
            positions.setdefault(entry.start_unit_id, start)
            positions.setdefault(entry.end_unit_id, start + count - 1)
            self.anchors.last_position = start + count - 1

    def finish(self) -> Anchors | None:
        return self.anchors if self.sound else None


def check_chunk_map(
    folder: Path, entry: Described, source: Any, report: BundleReport
) -> Anchors | None:
    """Check the chunk map; the positions it fixes, or ``None`` when it is not sound."""
    try:
        checked = _read(folder, entry.file, report, chunking=None)
        if checked is not None and checked[2] is None:
            chunking = _chunking(checked[0].member("chunking"))
            if chunking is not None:  # $.chunks came before $.chunking: once more, knowing it
                checked = _read(folder, entry.file, report, chunking=chunking)
    except Unreadable:
        return None
    if checked is None:
        return None
    skeleton, schema_lines, entries = checked
    header = skeleton.value
    lines = schema_problems(header, CHUNK_MAP_SCHEMA.id, relaxed=(".chunks",)) + schema_lines
    for line in lines:
        report.problem(CHUNK_MAP_FILE, line)
    if lines:
        return None
    members = {name: header.get(name) for name in ("artifact_kind", "schema", "source")}
    if not check_descriptor(entry, members, None, source, report):
        return None
    assert entries is not None  # a valid header has $.chunking
    for line in entries.lines:
        report.problem(CHUNK_MAP_FILE, line)
    return entries.finish()


def _read(
    folder: Path, file: str, report: BundleReport, chunking: tuple[int, int] | None
) -> tuple[Skeleton, list[str], _Entries | None] | None:
    """One pass: the skeleton, the entries' schema problems, and the entries' checks
    (``None`` when ``$.chunking`` was not known, valid, before the first entry)."""
    schema = schema_of(CHUNK_MAP_SCHEMA.id)
    inside = item_events(_ITEMS, schema["$defs"]["chunk"], schema["$defs"])
    schema_lines: list[str] = []
    state: dict[str, Any] = {"entries": None, "late": False, "index": 0}
    skeleton: Skeleton

    def on_entry(event: tuple[str, str, Any]) -> None:
        if event[1] == ITEM:
            add(_entry(event[2], f"$.chunks[{state['index']}]", schema_lines))

    def add(entry: ChunkEntry | None) -> None:
        state["index"] += 1
        entries = state["entries"]
        if entries is None and not state["late"]:
            known = chunking or _chunking(skeleton.member("chunking"))
            if known is not None:
                entries = state["entries"] = _Entries(*known)
            else:
                state["late"] = True
        if entries is not None and entry is not None and not schema_lines:
            entries.add(entry)

    skeleton = Skeleton(schema["properties"], {"chunks": on_entry})
    with open_document(folder, file, report) as handle:
        try:
            for event in stream(handle, [(_ITEMS, inside)], runs=(_ARRAY, _decode_entries)):
                if event[1] == RUN:  # entries decoded at once
                    for entry in event[2]:
                        add(entry)
                else:
                    skeleton.event(event)
        except JsonError:
            report.problem(file, "not valid JSON")
            return None
        except OSError as error:
            report.problem(file, f"cannot be read ({error.strerror})")
            return None
    entries = state["entries"]
    known = chunking or _chunking(skeleton.member("chunking"))
    if entries is None and not state["late"] and known is not None:
        entries = _Entries(*known)  # no chunks at all
    if entries is not None and entries.pending is not None:
        entries.pending = None  # the last chunk may be shorter
    return skeleton, schema_lines, entries


def _chunking(chunking: Any) -> tuple[int, int] | None:
    """``(max_units, overlap_units)`` when ``$.chunking`` satisfies its schema."""
    if not isinstance(chunking, dict) or chunking.keys() != {"max_units", "overlap_units"}:
        return None
    values = [chunking["max_units"], chunking["overlap_units"]]
    if not all(_integer(value) for value in values) or values[0] < 1 or values[1] < 0:
        return None
    return int(values[0]), int(values[1])


def _integer(value: Any) -> bool:
    """An integer as JSON Schema counts them (``5`` or ``5.0``, never ``true``)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())

"""``evidence-context.json``, checked as a stream: it can be larger than memory.

The document is read once with ijson (``json_stream``): each unit and each reference is
built in C, the rest of the document (its header and each context's bounds) is built by a
``Skeleton`` and checked by jsonschema. Units are decoded a batch at a time by msgspec
into ``SourceUnit`` (the source unit's one declaration); only a unit that fails is
checked by jsonschema against ``$defs/unit``, for the located message.

What it checks, by position within the evidence document (the chunk map's ``Anchors``
fix the source position of some units): no unit ID twice; each unit's ``source_ref``
cites the unit; each context's bounds are its first and last units; each reference lies
inside its context, start before end, references in order and distinct, lanes sorted,
allowlisted and published; each context is exactly the window-expanded union of its
references; units with a fixed position are in source order, contiguous within a
context, and contexts apart.

Memory: one block of the file, one batch of units, the references, and per context the
positions of the unit IDs its references name (all its unit IDs when a context lists its
units before its references, which streamer never writes); unit IDs are remembered by
8-byte hashes, spilled to a temporary file in runs (``repeated_ids``). A repeated hash
is confirmed on the IDs by a second pass, only then.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec
from msgspec import UNSET

from streamer.framework.safe_text import quoted
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.units import NonEmpty, SelfReference, SourceUnit, UnitMetadata
from streamer.output import evidence_context
from streamer.validation.bundle_files import Unreadable, open_document
from streamer.validation.chunk_map import Anchors
from streamer.validation.index_check import Described, check_descriptor
from streamer.validation.json_stream import ITEM, JsonError, item_events, stream
from streamer.validation.repeated_ids import IdHashes
from streamer.validation.report import BundleReport
from streamer.validation.schema_rules import (
    Failure,
    failure_lines,
    schema_failures,
    schema_of,
)
from streamer.validation.skeleton import Skeleton
from streamer.validation.window_union import is_window_union

FILE = evidence_context.FILE_NAME
SCHEMA_ID = evidence_context.SCHEMA.id
UNITS = "contexts.item.units.item"
REFERENCES = "contexts.item.references.item"
BATCH = 512
_IN_CONTEXT = "contexts.item"
_EMPTY_METADATA = UnitMetadata()

LaneId = Annotated[str, msgspec.Meta(pattern="^[a-z0-9][a-z0-9_-]{0,63}$")]


class Reference(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One reference of a context, as the schema's ``$defs/reference`` states it (but for
    ``lane_ids`` being distinct, checked beside)."""

    source_ref: SourceReference
    lane_ids: Annotated[list[LaneId], msgspec.Meta(min_length=1)]


class ContextHead(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A context without its units (they are checked one batch at a time)."""

    start_unit_id: NonEmpty
    end_unit_id: NonEmpty
    references: Annotated[list[Reference], msgspec.Meta(min_length=1)]
    units: list[Any]


Cited = dict[tuple[str, str, str], str]  # (start, end, lane) -> where the evidence cites it


@dataclass(frozen=True)
class CheckedEvidence:
    """A valid evidence document's allowlist, and where it attributes each reference."""

    allowlist: list[str]
    cited: Cited


def _items() -> list[tuple[str, frozenset[tuple[str, str]]]]:
    schema = schema_of(SCHEMA_ID)
    defs = schema["$defs"]
    return [
        (UNITS, item_events(UNITS, defs["unit"], defs)),
        (REFERENCES, item_events(REFERENCES, defs["reference"], defs)),
    ]


@dataclass
class _Context:
    """One context while its units stream by."""

    index: int
    skeleton: Skeleton
    batch: list[Any] = field(default_factory=list)
    count: int = 0  # units checked
    first_id: str | None = None
    last_id: str | None = None
    wanted: frozenset[str] | None = None  # the unit IDs its references name; None: all
    index_of: dict[str, int] = field(default_factory=dict)
    offset: int | None = None  # source position of its first unit, once an anchor fixes it

    @property
    def path(self) -> str:
        return f"$.contexts[{self.index}]"


@dataclass
class _Finished:
    """A context whose own checks are done, waiting for the header when it comes last."""

    context: _Context
    head: dict[str, Any]


class EvidenceCheck:
    def __init__(self, anchors: Anchors | None, lanes: dict[str, str]) -> None:
        """``lanes``: the file of each lane payload the index describes."""
        self.anchors = anchors
        self.lanes = lanes
        self.failures: list[Failure] = []  # schema failures
        self.lines: list[str] = []  # every other problem, in document order
        self.cited: Cited = {}
        self.hashes = IdHashes()
        self.previous_end: int | None = None  # source position of the previous context's end
        self.last_fixed = -1  # the latest source position fixed by the chunk map
        self.waiting: list[_Finished] = []
        self.contexts = 0
        self.current: _Context | None = None
        self.top = Skeleton(schema_of(SCHEMA_ID)["properties"], {"contexts": self._on_context})
        self._context_members = schema_of(SCHEMA_ID)["$defs"]["context"]["properties"]

    # -- the pass ---------------------------------------------------------------------

    def read(self, handle: IO[bytes]) -> None:
        top, units, on_context = self.top, UNITS, self._on_context
        for event in stream(handle, _items()):
            prefix = event[0]
            if prefix == units and self.current is not None:
                batch = self.current.batch  # a unit (one event): no skeleton needs it
                batch.append(event[2])
                if len(batch) >= BATCH:
                    self._units(self.current)
            elif prefix.startswith(_IN_CONTEXT) and top.streaming:
                on_context(event)  # what the top skeleton would forward, without it
            else:
                top.event(event)

    def _on_context(self, event: tuple[str, str, Any]) -> None:
        context = self.current
        if context is None:
            skeleton = Skeleton(self._context_members, {"units": _ignore})
            context = self.current = _Context(self.contexts, skeleton)
            self.contexts += 1
        context.skeleton.event(event)
        if context.skeleton.complete:
            self.current = None
            self._end_context(context)

    # -- units ------------------------------------------------------------------------

    def _units(self, context: _Context) -> None:
        raw, context.batch = context.batch, []
        if not raw:
            return
        base = context.count
        context.count += len(raw)
        path = context.path
        try:
            units: list[SourceUnit | None] = list(msgspec.convert(raw, list[SourceUnit]))
        except msgspec.ValidationError:
            units = [self._unit(item, f"{path}.units[{base + i}]") for i, item in enumerate(raw)]
        else:
            for i, unit in enumerate(units):  # what the struct allows and the schema does not
                assert unit is not None
                reference, metadata = unit.source_ref, unit.metadata
                if (
                    reference is UNSET
                    or metadata == _EMPTY_METADATA
                    or ""
                    in (
                        reference.start_unit_id,
                        reference.end_unit_id,
                    )
                ):
                    units[i] = self._unit(raw[i], f"{path}.units[{base + i}]")
        if self.failures:
            return  # the document breaks its schema: nothing else is reported
        checked: list[SourceUnit] = units  # type: ignore[assignment]
        self._unit_rules(context, base, checked)

    def _unit(self, item: Any, where: str) -> SourceUnit | None:
        failures = schema_failures(item, SCHEMA_ID, definition="unit", at=where)
        if failures:
            self.failures.extend(failures)
            return None
        reference = item["source_ref"]  # the schema allows it; the struct's types are strict
        return SourceUnit(
            item["unit_id"],
            item["kind"],
            item["text"],
            SelfReference(reference["start_unit_id"], reference["end_unit_id"]),
        )

    def _unit_rules(self, context: _Context, base: int, units: list[SourceUnit]) -> None:
        ids = [unit.unit_id for unit in units]
        self.hashes.add(ids)
        if context.first_id is None:
            context.first_id = ids[0]
            references = context.skeleton.member("references")
            if isinstance(references, list):  # references before units, as published
                context.wanted = frozenset(_named_ids(references))
        context.last_id = ids[-1]
        index_of = context.index_of
        wanted = context.wanted
        hits = set(ids) if wanted is None else wanted.intersection(ids)
        for offset in _offsets(ids, hits):
            index_of.setdefault(ids[offset], base + offset)
        found: list[tuple[int, int, str]] = []
        path = context.path
        for offset, unit in enumerate(units):
            reference = unit.source_ref
            unit_id = unit.unit_id
            if reference.start_unit_id != unit_id or reference.end_unit_id != unit_id:  # type: ignore[union-attr]
                found.append(
                    (
                        offset,
                        0,
                        f"{path}.units[{base + offset}].source_ref does not cite the unit itself",
                    )
                )
        anchors = self.anchors
        if anchors is not None:
            positions = anchors.positions
            for offset in _offsets(ids, positions.keys() & ids):
                unit_id, u_index = ids[offset], base + offset
                fixed = positions[unit_id]
                if fixed <= self.last_fixed or (
                    context.offset is not None and fixed - u_index != context.offset
                ):
                    found.append(
                        (
                            offset,
                            1,
                            f"{path}.units[{u_index}]: unit {quoted(unit_id)} is out of order "
                            f"(the chunk map puts it at source position {fixed})",
                        )
                    )
                context.offset = fixed - u_index if context.offset is None else context.offset
                self.last_fixed = max(self.last_fixed, fixed)
        self.lines.extend(line for _, _, line in sorted(found))

    # -- contexts ---------------------------------------------------------------------

    def _end_context(self, context: _Context) -> None:
        self._units(context)
        head = context.skeleton.value
        if not _sound_head(head) or context.count == 0:
            path = context.path
            failures = schema_failures(
                head, SCHEMA_ID, definition="context", relaxed=("context.units",), at=path
            )
            if isinstance(head, dict) and head.get("units") == [] and context.count == 0:
                where = f"{path}.units"
                failures.append((where, "minItems", f"{where} breaks the schema rule 'minItems'"))
            self.failures.extend(failures)
        if self.failures:
            return
        context.skeleton = _DONE
        finished = _Finished(context, head)
        if self.waiting or not self._header_known():
            self.waiting.append(finished)  # the header comes after the contexts
        else:
            self._context_rules(finished)

    def _header_known(self) -> bool:
        window, lanes = self.top.member("window_units"), self.top.member("lanes")
        return (
            type(window) is int
            and window >= 0
            and isinstance(lanes, list)
            and all(type(lane) is str for lane in lanes)
        )

    def _context_rules(self, finished: _Finished) -> None:
        context, head = finished.context, finished.head
        path, lines = context.path, self.lines
        for end, unit_id, which in (
            ("start_unit_id", context.first_id, "first"),
            ("end_unit_id", context.last_id, "last"),
        ):
            if head[end] != unit_id:
                lines.append(
                    f"{path}.{end} {quoted(head[end])} is not the context's {which} unit: "
                    "units are out of order or missing"
                )
        spans = self._references(path, head["references"], context.index_of)
        anchors = self.anchors
        at_start = at_end = anchors is None  # unknown: the document bounds allow slack
        last = None if context.offset is None else context.offset + context.count - 1
        if context.offset is not None and anchors is not None and last is not None:
            at_start, at_end = context.offset == 0, last == anchors.last_position
            if self.previous_end is not None and context.offset <= self.previous_end + 1:
                lines.append(f"{path} overlaps or touches the previous context")
            self.previous_end = last
        window = self.top.member("window_units")
        if spans is not None and not is_window_union(
            spans, context.count, window, at_start=at_start, at_end=at_end
        ):
            lines.append(
                f"{path} is not the union of its references expanded by window_units {window}"
            )

    def _references(
        self, path: str, references: list[dict[str, Any]], index_of: dict[str, int]
    ) -> list[tuple[int, int]] | None:
        """Check a context's references; their spans (positions in the context), or
        ``None`` when one does not resolve in it."""
        allowlist = self.top.member("lanes")
        spans: list[tuple[int, int]] = []
        resolved = True
        lines = self.lines
        for r_index, reference in enumerate(references):
            where = f"{path}.references[{r_index}]"
            start = reference["source_ref"]["start_unit_id"]
            end = reference["source_ref"]["end_unit_id"]
            lane_ids = reference["lane_ids"]
            if lane_ids != sorted(lane_ids):
                lines.append(f"{where}.lane_ids is not sorted")
            for lane_id in lane_ids:
                if lane_id not in allowlist:
                    lines.append(f"{where}: lane {lane_id} is not in $.lanes")
                elif lane_id not in self.lanes:
                    lines.append(f"{where}: lane {lane_id} has no payload in the bundle")
                self.cited.setdefault((start, end, lane_id), where)
            outside = [unit_id for unit_id in (start, end) if unit_id not in index_of]
            if outside:
                lines.append(f"{where}: unit {quoted(outside[0])} is outside the context's bounds")
                resolved = False
                continue
            span = (index_of[start], index_of[end])
            if span[0] > span[1]:
                lines.append(f"{where}: reversed, {quoted(start)} comes after {quoted(end)}")
                resolved = False
            elif spans and span <= spans[-1]:
                lines.append(f"{where}: references are out of order or repeated")
            spans.append(span)
        return spans if resolved else None

    # -- the end ----------------------------------------------------------------------

    def finish(self) -> list[str]:
        """The header's schema failures and the waiting contexts' checks, once read."""
        header = self.top.value
        self.failures.extend(schema_failures(header, SCHEMA_ID, relaxed=(".contexts",)))
        if self.failures:
            return failure_lines(self.failures, SCHEMA_ID)
        lanes = header["lanes"]
        first = [] if lanes == sorted(lanes) else ["$.lanes is not sorted"]
        waiting, self.waiting = self.waiting, []
        for finished in waiting:
            self._context_rules(finished)
        self.lines[:0] = first
        return []


def _sound_head(head: Any) -> bool:
    """Whether a context's head satisfies its schema (the common case, without jsonschema)."""
    try:
        checked = msgspec.convert(head, ContextHead)
    except msgspec.ValidationError:
        return False
    return all(len(set(item.lane_ids)) == len(item.lane_ids) for item in checked.references)


def _named_ids(references: list[Any]) -> list[str]:
    """The unit IDs at the ends of well-formed references (others fail the schema)."""
    named: list[str] = []
    for reference in references:
        source_ref = reference.get("source_ref") if isinstance(reference, dict) else None
        if isinstance(source_ref, dict):
            named.extend(
                value
                for value in (source_ref.get("start_unit_id"), source_ref.get("end_unit_id"))
                if isinstance(value, str)
            )
    return named


def _offsets(ids: list[str], hits: Any) -> Any:
    """The offsets in ``ids`` of the IDs in ``hits``, in order."""
    if not hits:
        return ()
    return itertools.compress(itertools.count(), map(hits.__contains__, ids))


def _ignore(event: tuple[str, str, Any]) -> None:
    """Units reach the check directly; the skeleton only builds ``units`` as an array."""


_DONE = Skeleton(())


class _Repeats:
    """The second pass, when hashes repeat: each unit ID seen before, where it repeats."""

    def __init__(self, repeated: set[int]) -> None:
        self.repeated = repeated
        self.seen: dict[str, str] = {}
        self.lines: list[str] = []
        self.contexts = -1
        self.count = 0
        self.context: Skeleton | None = None

    def read(self, handle: IO[bytes]) -> list[str]:
        top = Skeleton(("contexts",), {"contexts": self._on_context})
        for event in stream(handle, _items()):
            if event[1] == ITEM and event[0] == UNITS:
                self._unit(event[2])
            else:
                top.event(event)
        return self.lines

    def _on_context(self, event: tuple[str, str, Any]) -> None:
        if self.context is None or self.context.complete:
            self.context = Skeleton((), {"units": _ignore})
            self.contexts += 1
            self.count = 0
        self.context.event(event)

    def _unit(self, unit: dict[str, Any]) -> None:
        unit_id = unit["unit_id"]
        where = f"$.contexts[{self.contexts}].units[{self.count}]"
        self.count += 1
        if hash(unit_id) in self.repeated:
            if unit_id in self.seen:
                self.lines.append(f"{where}: unit {quoted(unit_id)} repeats {self.seen[unit_id]}")
            else:
                self.seen[unit_id] = where


def check_evidence(
    folder: Path,
    entry: Described,
    source: Any,
    anchors: Anchors | None,
    lanes: dict[str, str],
    report: BundleReport,
) -> CheckedEvidence | None:
    """Check the evidence document; its allowlist and the references it attributes to each
    lane, or ``None`` when it breaks its schema or disagrees with its descriptor."""
    check = EvidenceCheck(anchors, lanes)
    try:
        with open_document(folder, entry.file, report) as handle:
            try:
                check.read(handle)
            except JsonError:
                report.problem(entry.file, "not valid JSON")
                return None
            except OSError as error:
                report.problem(entry.file, f"cannot be read ({error.strerror})")
                return None
            failures = check.finish()
            for line in failures:
                report.problem(entry.file, line)
            if failures:
                return None
            header = check.top.value
            members = {name: header.get(name) for name in ("artifact_kind", "schema", "source")}
            if not check_descriptor(entry, members, None, source, report):
                return None
            repeated = check.hashes.repeated()
            if repeated:
                handle.seek(0)
                check.lines.extend(_Repeats(repeated).read(handle))  # reported last
    except Unreadable:
        return None
    for line in check.lines:
        report.problem(entry.file, line)
    return CheckedEvidence(check.top.value["lanes"], check.cited)

"""The units of the evidence document, a batch at a time: decoded by ``SourceUnit`` (the
source unit's one declaration), checked by jsonschema only when that fails, then the rules
a unit obeys: its self-reference, its place in the source where the chunk map fixes it.
Their unit IDs are remembered by hash (``repeated_ids``)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from msgspec import UNSET

from streamer.framework.errors.safe_text import quoted
from streamer.framework.source.reference import SourceReference
from streamer.framework.source.source_unit import SourceUnit, UnitMetadata
from streamer.validation.chunk_map import Anchors
from streamer.validation.evidence_shape import SCHEMA_ID, named_ids
from streamer.validation.repeated_ids import IdHashes
from streamer.validation.schema_rules import Failure, schema_failures
from streamer.validation.skeleton import Skeleton

_EMPTY_METADATA = UnitMetadata()


@dataclass
class Context:
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
class Finished:
    """A context whose own checks are done, waiting for the header when it comes last."""

    context: Context
    head: dict[str, Any]


class EvidenceSeen(Protocol):
    """Told what the check read of the evidence document, in document order, once its own
    checks passed: each batch of units (``units``), then each context's head as a JSON
    value without its units, with the count of its units (``context``). What it was told
    is worth something only when the whole bundle is valid (the report uses it then, not
    to read the document a second time)."""

    def units(self, units: list[SourceUnit], /) -> None: ...

    def context(self, count: int, head: dict[str, Any], /) -> None: ...


class UnitRules:
    """The unit checks of ``EvidenceCheck`` (its state: the attributes below)."""

    anchors: Anchors | None
    seen: EvidenceSeen | None
    failures: list[Failure]
    lines: list[str]
    hashes: IdHashes
    last_fixed: int

    def _units(self, context: Context) -> None:
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
            for i, unit in enumerate(units):
                assert unit is not None
                if not schema_sound(unit):
                    units[i] = self._unit(raw[i], f"{path}.units[{base + i}]")
        if self.failures:
            return  # the document breaks its schema: nothing else is reported
        checked: list[SourceUnit] = units  # type: ignore[assignment]
        self._unit_rules(context, base, checked)

    def _decoded_units(self, context: Context, units: list[SourceUnit]) -> None:
        """Units decoded at once (``decode_units``), after those of the batch."""
        self._units(context)
        base = context.count
        context.count += len(units)
        if not self.failures:
            self._unit_rules(context, base, units)

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
            SourceReference(reference["start_unit_id"], reference["end_unit_id"]),
        )

    def _unit_rules(self, context: Context, base: int, units: list[SourceUnit]) -> None:
        if self.seen is not None:
            self.seen.units(units)
        ids = [unit.unit_id for unit in units]
        self.hashes.add(ids)
        if context.first_id is None:
            context.first_id = ids[0]
            references = context.skeleton.member("references")
            if isinstance(references, list):  # references before units, as published
                context.wanted = frozenset(named_ids(references))
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


def _offsets(ids: list[str], hits: Any) -> Any:
    """The offsets in ``ids`` of the IDs in ``hits``, in order."""
    if not hits:
        return ()
    return itertools.compress(itertools.count(), map(hits.__contains__, ids))


def schema_sound(unit: SourceUnit) -> bool:
    """Whether a decoded unit is one the schema allows too (the struct also allows a unit
    without ``source_ref``, with empty metadata or an empty unit ID in ``source_ref``)."""
    reference = unit.source_ref
    return (
        reference is not UNSET
        and unit.metadata != _EMPTY_METADATA
        and reference.start_unit_id != ""
        and reference.end_unit_id != ""
    )


_decode = msgspec.json.Decoder(list[SourceUnit]).decode


def decode_units(text: bytes) -> list[SourceUnit] | None:
    """A run of units (a JSON array text) decoded at once, when each is sound by the
    schema; ``None`` for anything else (read as items then, for the located problem)."""
    try:
        units = _decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return units if all(map(schema_sound, units)) else None

"""``evidence-context.json``, checked as a stream: it can be larger than memory.

The document is read once (``framework.json.events.stream``): the units of each context
are cut into runs of bytes and each run decoded at once by msgspec into ``SourceUnit``
(the source unit's one declaration, ``evidence_units.decode_units``); the rest is read by
ijson, each reference built in C, the rest of the document (its header and each context's
bounds) built by a ``Skeleton`` and checked by jsonschema. A run that does not decode
(or holds a unit the schema refuses) and the rest of its context's units are read by
ijson instead, one unit an item, decoded a batch at a time; only a unit that fails is
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

from pathlib import Path
from typing import IO, Any

from streamer.framework.json.events import RUN, JsonError, stream
from streamer.validation.bundle_files import Unreadable, open_document
from streamer.validation.bundle_report import BundleReport
from streamer.validation.chunk_map import Anchors
from streamer.validation.evidence_contexts import ContextRules
from streamer.validation.evidence_repeats import DONE, Repeats, ignore
from streamer.validation.evidence_shape import (
    IN_CONTEXT,
    SCHEMA_ID,
    UNITS,
    UNITS_ARRAY,
    CheckedEvidence,
    Cited,
    sound_head,
    stream_items,
)
from streamer.validation.evidence_units import (
    Context,
    EvidenceSeen,
    Finished,
    UnitRules,
    decode_units,
)
from streamer.validation.index_check import Described, check_descriptor
from streamer.validation.repeated_ids import IdHashes
from streamer.validation.schema_rules import Failure, failure_lines, schema_failures, schema_of
from streamer.validation.skeleton import Skeleton

BATCH = 512  # units decoded at once


class EvidenceCheck(UnitRules, ContextRules):
    """One pass over the evidence document; ``finish`` once it has been read."""

    def __init__(
        self, anchors: Anchors | None, lanes: dict[str, str], seen: EvidenceSeen | None = None
    ) -> None:
        """``lanes``: the file of each lane payload the index describes; ``seen``: told
        the units and contexts as they are checked."""
        self.anchors = anchors
        self.seen = seen
        self.lanes = lanes
        self.failures: list[Failure] = []  # schema failures
        self.lines: list[str] = []  # every other problem, in document order
        self.cited: Cited = {}
        self.hashes = IdHashes()
        self.previous_end: int | None = None  # source position of the previous context's end
        self.last_fixed = -1  # the latest source position fixed by the chunk map
        self.waiting: list[Finished] = []
        self.contexts = 0
        self.current: Context | None = None
        self.top = Skeleton(schema_of(SCHEMA_ID)["properties"], {"contexts": self._on_context})
        self._context_members = schema_of(SCHEMA_ID)["$defs"]["context"]["properties"]

    # -- the pass ---------------------------------------------------------------------

    def read(self, handle: IO[bytes]) -> None:
        top, units, on_context = self.top, UNITS, self._on_context
        for event in stream(handle, stream_items(), runs=(UNITS_ARRAY, decode_units)):
            prefix = event[0]
            if prefix == units and self.current is not None:
                if event[1] == RUN:  # a run of units decoded at once
                    self._decoded_units(self.current, event[2])
                    continue
                batch = self.current.batch  # a unit (one event): no skeleton needs it
                batch.append(event[2])
                if len(batch) >= BATCH:
                    self._units(self.current)
            elif prefix.startswith(IN_CONTEXT) and top.streaming:
                on_context(event)  # what the top skeleton would forward, without it
            else:
                top.event(event)

    def _on_context(self, event: tuple[str, str, Any]) -> None:
        context = self.current
        if context is None:
            skeleton = Skeleton(self._context_members, {"units": ignore})
            context = self.current = Context(self.contexts, skeleton)
            self.contexts += 1
        context.skeleton.event(event)
        if context.skeleton.complete:
            self.current = None
            self._end_context(context)

    # -- units ------------------------------------------------------------------------

    def _end_context(self, context: Context) -> None:
        self._units(context)
        head = context.skeleton.value
        if not sound_head(head) or context.count == 0:
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
        if self.seen is not None:
            self.seen.context(context.count, head)
        context.skeleton = DONE
        finished = Finished(context, head)
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


def check_evidence(
    folder: Path,
    entry: Described,
    source: Any,
    anchors: Anchors | None,
    lanes: dict[str, str],
    report: BundleReport,
    seen: EvidenceSeen | None = None,
) -> CheckedEvidence | None:
    """Check the evidence document; its allowlist and the references it attributes to each
    lane, or ``None`` when it breaks its schema or disagrees with its descriptor.
    ``seen``: told its units and contexts as they are checked (``EvidenceSeen``)."""
    check = EvidenceCheck(anchors, lanes, seen)
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
                check.lines.extend(Repeats(repeated).read(handle))  # reported last
    except Unreadable:
        return None
    for line in check.lines:
        report.problem(entry.file, line)
    return CheckedEvidence(check.top.value["lanes"], check.cited)

"""What ``streamer run`` and ``streamer batch`` say at the end on a terminal: a few lines
for a person (records per lane, why a lane is empty, where the report is), in place of
the JSON receipt, which standard output carries when it is not a terminal or with
``--json``, unchanged."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from streamer.api.batches import BatchResult
    from streamer.api.runs import RunResult

MODEL_FLAGS = "--model-url URL --model NAME"


def _stage(receipt: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for stage in receipt.get("stages", ()):
        if stage["stage"] == name:
            counts: Mapping[str, Any] = stage["counts"]
            return counts
    return {}


def _records(count: int) -> str:
    return f"{count} record" + ("" if count == 1 else "s")


def why_empty(extracted: Mapping[str, Any], normalized: Mapping[str, Any]) -> str:
    """Why a lane published no record, for a person: its rules' note (what they need), or
    that nothing was found, or that what was found could not be grounded."""
    note = extracted.get("note")
    if note:
        return str(note)
    candidates = int(normalized.get("candidates", 0))
    if candidates == 0:
        return "nothing found"
    return f"{candidates} found, none grounded in the transcript (the report counts why)"


def lane_lines(receipt: Mapping[str, Any]) -> list[str]:
    """One line a lane: its records, and why when it has none."""
    extracted = {lane["lane_id"]: lane for lane in _stage(receipt, "extract").get("lanes", ())}
    normalized = _stage(receipt, "normalize").get("lanes", ())
    width = max((len(lane["lane_id"]) for lane in normalized), default=0)
    lines = []
    for lane in normalized:
        line = f"  {lane['lane_id']:<{width}}  {_records(lane['records'])}"
        if lane["records"] == 0:
            line += f": {why_empty(extracted.get(lane['lane_id'], {}), lane)}"
        lines.append(line)
    return lines


def not_run_line(not_run: Iterable[str], model_server: bool) -> list[str]:
    lanes = ", ".join(not_run)
    if not lanes:
        return []
    if model_server:
        return [f"  not run: {lanes} (not in the configuration)"]
    return [f"  not run: {lanes} (they need a model server: add {MODEL_FLAGS})"]


def run_summary(result: RunResult, seconds: float) -> str:
    """The end of ``streamer run`` for a person; ``seconds``: the command's wall time."""
    receipt = result.receipt()
    units = _stage(receipt, "import").get("units")
    head = f"{result.document_id}: {units} units in {seconds:.1f} s"
    lines = [head, *lane_lines(receipt), *not_run_line(result.not_run, result.model_server)]
    lines.append(f"report: {result.report}  (bundle: {result.output}/)")
    return "\n".join(lines)


def batch_summary(result: BatchResult, output_dir: str) -> str:
    """The end of ``streamer batch`` for a person: sessions by how they ended, records per
    lane over the sessions, where the pages are."""
    receipt = result.receipt()
    head = (
        f"{receipt['sessions']} sessions: {receipt['ok']} ran, {receipt['skipped']} "
        f"unchanged, {receipt['failed']} failed"
    )
    totals: dict[str, int] = {}
    for line in result.lines:
        for lane in _stage(line.receipt or {}, "normalize").get("lanes", ()):
            totals[lane["lane_id"]] = totals.get(lane["lane_id"], 0) + lane["records"]
    width = max(map(len, totals), default=0)
    lanes = [f"  {lane:<{width}}  {_records(count)}" for lane, count in sorted(totals.items())]
    folder = output_dir.rstrip("/")
    tail = f"pages: {folder}/<session>.html, {folder}/index.html; summary: {folder}/batch.jsonl"
    return "\n".join([head, *lanes, tail])

"""The naive baseline: everything in memory, plain Python, no streaming.

Loads the whole source document (``orjson.loads`` of the file, or of every line), builds a
unit ID -> position dict, checks the semantic digest and the lanes' source, expands every
reference by the window, merges the ranges with a sort and one sweep, and writes the
evidence-context document with one ``orjson.dumps``. It does not use streamer's code and
validates nothing beyond what it needs to produce the document, so it doubles as an
independent oracle: its output must be byte-identical to ``streamer evidence``.

Usage: ``python -m benchmarks.contenders.naive --config F --source F --lanes-dir D
--output F|-``. Skipped above ``--naive-max`` (it needs ~5-7x the input in memory).
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import yaml

from benchmarks.checks import check_same
from benchmarks.contenders import PYTHON, Contender, Invocation, register
from benchmarks.skips import too_big

if TYPE_CHECKING:
    from benchmarks.cases import Case

SCHEMA = {
    "id": "notarius.source.evidence_context",
    "name": "notarius_source_evidence_context_v1",
    "version": "v1",
}


class Naive(Contender):
    name = "naive"
    summary = "everything in memory, plain Python and orjson (an independent oracle)"
    needs = ("evidence",)

    def skip(self, case: Case) -> str | None:
        return too_big(case, "naive")

    def invocations(self, case: Case) -> list[Invocation]:
        output = case.out / f"naive.{case.form}.json"
        argv = [PYTHON, "-m", "benchmarks.contenders.naive", *case.evidence_args]
        return [
            Invocation(
                [*argv, "--source", str(case.source), "--output", str(output)], output=output
            )
        ]

    def check(self, case: Case, invocation: Invocation) -> str:
        return check_same(invocation.output, case.outputs.get("evidence"), "evidence")


register(Naive())


# -- the baseline itself (in the child) -----------------------------------------------


def load_source(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(header, units)`` of a JSON or JSON Lines document, all in memory."""
    with open(path, "rb") as stream:
        data = stream.read()
    first_line = data[: data.find(b"\n") + 1 or len(data)]
    try:
        header = orjson.loads(first_line)
        is_jsonl = "units" not in header
    except orjson.JSONDecodeError:
        is_jsonl = False
    if not is_jsonl:
        document = orjson.loads(data)
        del data
        units = document.pop("units")
        return document, units
    lines = data.split(b"\n")
    del data
    loads = orjson.loads
    units = [loads(line) for line in lines[1:] if line]
    del lines
    return header, units


def semantic_digest(units: list[dict[str, Any]]) -> str:
    sha = hashlib.sha256()
    for unit in units:
        plain = {key: value for key, value in unit.items() if key != "source_ref"}
        if not plain.get("metadata", True):
            del plain["metadata"]
        sha.update(orjson.dumps(plain, option=orjson.OPT_SORT_KEYS) + b"\n")
    return "sha256:" + sha.hexdigest()


def published(unit: dict[str, Any]) -> dict[str, Any]:
    unit_id = unit["unit_id"]
    out = {
        "unit_id": unit_id,
        "kind": unit["kind"],
        "text": unit["text"],
        "source_ref": {"start_unit_id": unit_id, "end_unit_id": unit_id},
    }
    metadata = unit.get("metadata")
    if metadata:
        out["metadata"] = {
            k: metadata[k] for k in ("speaker", "start_ms", "end_ms") if k in metadata
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.contenders.naive", description=__doc__
    )
    parser.add_argument("--config", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--lanes-dir", required=True)
    parser.add_argument("--output", default="-")
    args = parser.parse_args(argv)

    config = yaml.safe_load(Path(args.config).read_text(encoding="utf-8"))
    settings = config["output"]["options"]["evidence_context"]
    window = settings.get("window_units", 3)
    allowlist = sorted({lane.strip() for lane in settings["lanes"]})
    configured = {lane["id"] for lane in config["pipeline"]["lanes"]}

    header, units = load_source(args.source)
    position = {unit["unit_id"]: index for index, unit in enumerate(units)}
    if len(position) != len(units):
        raise SystemExit("naive: duplicate unit IDs")
    digest = semantic_digest(units)
    if header.get("semantic_digest", digest) != digest:
        raise SystemExit("naive: the semantic digest does not match")

    lanes_of: dict[tuple[str, str], set[str]] = {}
    for lane in allowlist:
        path = Path(args.lanes_dir) / f"{lane}.json"
        if lane not in configured or not path.exists():
            continue
        output = orjson.loads(path.read_bytes())
        source = output["source"]
        if source != {"document_id": header["document_id"], "semantic_digest": digest}:
            raise SystemExit(f"naive: lane {lane} names another source")
        for record in output["records"]:
            refs = record["source_refs"] if "source_refs" in record else [record["source_ref"]]
            for ref in refs:
                lanes_of.setdefault((ref["start_unit_id"], ref["end_unit_id"]), set()).add(lane)

    last = len(units) - 1
    ranges = []
    for start_id, end_id in lanes_of:
        start, end = position[start_id], position[end_id]
        if start > end:
            raise SystemExit("naive: reversed reference")
        ranges.append((max(0, start - window), min(last, end + window)))
    ranges.sort()
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])

    contexts: list[dict[str, Any]] = [
        {
            "start_unit_id": units[start]["unit_id"],
            "end_unit_id": units[end]["unit_id"],
            "references": [],
            "units": [published(unit) for unit in units[start : end + 1]],
        }
        for start, end in merged
    ]
    starts = [start for start, _ in merged]
    for (start_id, end_id), lanes in sorted(
        lanes_of.items(), key=lambda item: (position[item[0][0]], position[item[0][1]])
    ):
        context = contexts[bisect.bisect_right(starts, position[start_id]) - 1]
        context["references"].append(
            {
                "source_ref": {"start_unit_id": start_id, "end_unit_id": end_id},
                "lane_ids": sorted(lanes),
            }
        )
    document = {
        "artifact_kind": "source/evidence-context",
        "schema": SCHEMA,
        "source": {"document_id": header["document_id"], "semantic_digest": digest},
        "window_units": window,
        "lanes": allowlist,
        "contexts": contexts,
    }
    data = orjson.dumps(document) + b"\n"
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        Path(args.output).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())

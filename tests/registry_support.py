"""Small session bundles for the campaign registry's tests: an index and lane payloads,
as ``streamer batch`` publishes them (the registry reads nothing else), and the
``batch.jsonl`` lines that list them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from streamer.framework.kinds.registry import SchemaIdentity
from tests.support import KIND_OF_LANE

DIGEST = "sha256:" + "0" * 64


def _record(lane_id: str, record: Sequence[Any]) -> dict[str, Any]:
    refs = [{"start_unit_id": a, "end_unit_id": b} for a, b in record[-1]]
    if lane_id == "spells":
        record_id, spell, caster, _ = record
        return {"spell_cast_id": record_id, "spell": spell, "caster": caster, "source_refs": refs}
    if lane_id == "item-events":
        return {
            "item_event_id": record[0],
            "item": record[1],
            "event": "acquired",
            "holder": None,
            "source_refs": refs,
        }
    return {f"{lane_id[:-1]}_id": record[0], "name": record[1], "source_refs": refs}


def write_bundle(folder: Path, document_id: str, lanes: Mapping[str, Sequence[Any]]) -> None:
    """A bundle of ``lanes`` (lane ID -> records as tuples) in ``folder/document_id``."""
    bundle = folder / document_id
    (bundle / "lanes").mkdir(parents=True)
    descriptors = []
    for lane_id in sorted(lanes):
        kind = KIND_OF_LANE[lane_id]
        schema = SchemaIdentity.for_kind(kind).to_json()
        records = [_record(lane_id, record) for record in lanes[lane_id]]
        payload = {
            "lane_id": lane_id,
            "artifact_kind": kind,
            "schema": schema,
            "source": {"document_id": document_id, "semantic_digest": DIGEST},
            "records": records,
        }
        (bundle / "lanes" / f"{lane_id}.json").write_bytes(orjson.dumps(payload) + b"\n")
        descriptors.append(
            {
                "file": f"lanes/{lane_id}.json",
                "artifact_kind": kind,
                "media_type": "application/json",
                "schema": schema,
                "lane_id": lane_id,
                "record_count": len(records),
            }
        )
    index = {
        "artifact_kind": "output/index",
        "source": {"document_id": document_id, "semantic_digest": DIGEST},
        "lanes": descriptors,
    }
    (bundle / "index.json").write_bytes(orjson.dumps(index) + b"\n")
    (folder / f"{document_id}.html").write_text("<!DOCTYPE html>\n")


def write_lines(folder: Path, sessions: Sequence[tuple[str, str]]) -> None:
    """``batch.jsonl``: one line per (document ID, status), rows 2, 3... in that order."""
    lines = [
        orjson.dumps({"row": row, "document_id": document_id, "status": status})
        for row, (document_id, status) in enumerate(sessions, start=2)
    ]
    (folder / "batch.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))

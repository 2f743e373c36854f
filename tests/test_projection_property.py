"""The streaming projector against a brute-force reference, over random documents with
non-monotonic unit IDs, random references from several lanes, windows from 0 to beyond
the document, in both source forms and with small read buffers."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from streamer import api
from tests.support import RECORD_MAKERS, ref, units, write_case

LANES = sorted(RECORD_MAKERS)


def brute_force(
    doc_units: list[dict[str, Any]],
    lanes: dict[str, list[dict[str, Any]]],
    allowlist: list[str],
    window: int,
    document_id: str,
    digest: str,
) -> bytes:
    """The evidence document computed the slow, obvious way."""
    position = {u["unit_id"]: i for i, u in enumerate(doc_units)}
    cited: dict[tuple[str, str], set[str]] = {}
    for lane_id in allowlist:
        for record in lanes.get(lane_id, []):
            for reference in record["source_refs"]:
                key = (reference["start_unit_id"], reference["end_unit_id"])
                cited.setdefault(key, set()).add(lane_id)
    covered: set[int] = set()
    for start, end in cited:
        low = max(0, position[start] - window)
        high = min(len(doc_units) - 1, position[end] + window)
        covered.update(range(low, high + 1))
    runs: list[list[int]] = []
    for p in sorted(covered):
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    contexts = []
    for run in runs:
        inside = sorted(
            (key for key in cited if position[key[0]] in run),
            key=lambda key: (position[key[0]], position[key[1]]),
        )
        published = []
        for p in run:
            u = doc_units[p]
            item = {
                "unit_id": u["unit_id"],
                "kind": u["kind"],
                "text": u["text"],
                "source_ref": {"start_unit_id": u["unit_id"], "end_unit_id": u["unit_id"]},
            }
            if u.get("metadata"):
                item["metadata"] = {
                    k: u["metadata"][k]
                    for k in ("speaker", "start_ms", "end_ms")
                    if k in u["metadata"]
                }
            published.append(item)
        contexts.append(
            {
                "start_unit_id": doc_units[run[0]]["unit_id"],
                "end_unit_id": doc_units[run[-1]]["unit_id"],
                "references": [
                    {
                        "source_ref": {"start_unit_id": s, "end_unit_id": e},
                        "lane_ids": sorted(cited[(s, e)]),
                    }
                    for s, e in inside
                ],
                "units": published,
            }
        )
    document = {
        "artifact_kind": "source/evidence-context",
        "schema": {
            "id": "notarius.source.evidence_context",
            "name": "notarius_source_evidence_context_v1",
            "version": "v1",
        },
        "source": {"document_id": document_id, "semantic_digest": digest},
        "window_units": window,
        "lanes": sorted(allowlist),
        "contexts": contexts,
    }
    return orjson.dumps(document) + b"\n"


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 30))
    # Opaque, non-monotonic IDs: a random permutation of numbered names.
    numbers = draw(st.permutations(list(range(n))))
    ids = [f"u{number}" for number in numbers]
    lanes: dict[str, list[dict[str, Any]]] = {}
    for lane_id in draw(st.lists(st.sampled_from(LANES), unique=True)):
        records = []
        for index in range(draw(st.integers(0, 4))):
            refs = []
            for _ in range(draw(st.integers(1, 3))):
                a = draw(st.integers(0, n - 1))
                b = draw(st.integers(a, min(n - 1, a + 4)))
                refs.append(ref(ids[a], ids[b]))
            records.append(RECORD_MAKERS[lane_id](f"{lane_id}-{index}", *refs))
        lanes[lane_id] = records
    allowlist = draw(st.lists(st.sampled_from(LANES), min_size=1, unique=True))
    return {
        "units": units(ids),
        "lanes": lanes,
        "allowlist": allowlist,
        "window": draw(st.integers(0, n + 3)),
        "form": draw(st.sampled_from(["json", "jsonl"])),
        "buffer_size": draw(st.sampled_from([3, 17, 1 << 16])),
        "batch_units": draw(st.sampled_from([1, 2, 5, 4096])),
    }


@settings(max_examples=300, deadline=None)
@given(cases())
def test_projection_matches_brute_force(case: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        written = write_case(
            Path(folder),
            case["units"],
            case["lanes"],
            configured=LANES,
            allowlist=case["allowlist"],
            window=case["window"],
            form=case["form"],
        )
        out = io.BytesIO()
        api.evidence(
            api.load_config(written.config),
            written.source,
            written.lanes_dir,
            output=out,
            warn=lambda message: None,
            buffer_size=case["buffer_size"],
            batch_units=case["batch_units"],
        )
    expected = brute_force(
        case["units"], case["lanes"], case["allowlist"], case["window"], "doc-1", written.digest
    )
    assert out.getvalue() == expected

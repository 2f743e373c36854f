"""The real CRD3 episodes through import, chunk, normalize and bundle (and validate), with
candidates written from CRD3's own data: a scene candidate per summary alignment (location
``summary N``, its turn range, cut at the edges of every chunk it crosses, so fragments must collapse), a spell
candidate per turn naming an SRD spell (from every chunk holding the turn, so duplicates
from overlapping chunks must collapse), an NPC-registry candidate per turn speaker
(plumbing data: one record per name key), and one candidate one unit past its chunk. The
candidates are plumbing data, not said by their units, so the support check is off (its
provenance is then in the bundle's index); ``tests/test_support_check_crd3.py`` checks support."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer.domain.dnd.normalization_specs import CAST_WINDOW_UNITS
from streamer.domain.dnd.spell_catalog import srd_spells
from streamer.framework.names import name_key
from tests.bundle_support import CRD3_EPISODES
from tests.normalize_support import header, write_candidates
from tests.support import CRD3, Case, invoke, ref

CONFIG = """pipeline:
  lanes:
    - {id: scene-descriptions, artifact_kind: dnd/scene-descriptions}
    - {id: spells, artifact_kind: dnd/spell-casts}
    - {id: npcs, artifact_kind: dnd/npcs}
  normalization:
    support: off  # the candidates are plumbing data (summaries, speakers), not said
output:
  module: json
  options:
    evidence_context: {enabled: true, window_units: 1, lanes: [spells, npcs]}
"""
SPELLS = re.compile(
    r"\b("
    + "|".join(
        re.escape(n) for n in sorted(srd_spells().names, key=len, reverse=True) if len(n) > 8
    )
    + r")\b",
    re.IGNORECASE,
)


def crd3_candidates(
    root: Path, case: Case, chunks: list[dict[str, Any]], episode: Path
) -> dict[str, Any]:
    position: dict[str, int] = {}
    for chunk in chunks:
        first = len(position) if not position else None
        del first
        for unit in chunk["units"]:
            position.setdefault(unit["unit_id"], len(position))
    spans = [
        (c["chunk_id"], position[c["start_unit_id"]], position[c["end_unit_id"]], c["units"])
        for c in chunks
    ]
    ids = sorted(position, key=position.__getitem__)
    folder = root / "candidates"
    alignments = json.loads((CRD3 / "alignments" / f"{episode.stem}_2_0.json").read_text())
    scenes = []
    for index, item in enumerate(alignments):
        start = position[f"t{item['ALIGNMENT']['TURN START']:05d}"]
        end = position[f"t{item['ALIGNMENT']['TURN END']:05d}"]
        for chunk_id, low, high, _ in spans:
            if low <= end and start <= high:
                cut = ref(ids[max(start, low)], ids[min(end, high)])
                scenes.append(
                    {
                        "chunk_id": chunk_id,
                        "record": {"location": f"summary {index}", "source_ref": cut},
                    }
                )
    spells, npcs = [], []
    for chunk_id, _, _, units in spans:
        for unit in units:
            for match in SPELLS.finditer(unit["text"]):
                record = {
                    "spell": match[1].lower(),
                    "caster": None,
                    "source_refs": [ref(unit["unit_id"])],
                }
                spells.append({"chunk_id": chunk_id, "record": record})
            if unit.get("speaker"):
                npcs.append(
                    {
                        "chunk_id": chunk_id,
                        "record": {"name": unit["speaker"], "source_refs": [ref(unit["unit_id"])]},
                    }
                )
    chunk_id, low, high, _ = spans[0]
    past = {"chunk_id": chunk_id, "record": {"name": "Anyone", "source_refs": [ref(ids[high + 1])]}}
    write_candidates(folder, "scene-descriptions", case, scenes)
    write_candidates(folder, "spells", case, spells)
    write_candidates(folder, "npcs", case, [*npcs, past])
    speakers = {name_key(c["record"]["name"]) for c in npcs}
    cast_units = {
        (
            c["record"]["source_refs"][0]["start_unit_id"],
            srd_spells().canonical(c["record"]["spell"]),
        )
        for c in spells
    }
    # one record per cast: the same spell cited by units at most CAST_WINDOW_UNITS apart
    # is one cast (every caster here is null)
    position = {unit_id: index for index, unit_id in enumerate(ids)}
    by_spell: dict[str, list[int]] = {}
    for unit_id, spell in cast_units:
        by_spell.setdefault(spell, []).append(position[unit_id])
    casts = 0
    for found in by_spell.values():
        found.sort()
        casts += 1 + sum(1 for a, b in pairwise(found) if b - a > CAST_WINDOW_UNITS)
    return {
        "folder": folder,
        "scenes": len(scenes),
        "spells": len(spells),
        "npcs": len(npcs) + 1,
        "speakers": len(speakers),
        "casts": casts,
        "alignments": len(alignments),
    }


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("episode", CRD3_EPISODES, ids=lambda path: path.stem)
def test_crd3_import_chunk_normalize_bundle_validate(tmp_path: Path, episode: Path) -> None:
    source = tmp_path / "session.jsonl"
    assert invoke(["import", "crd3", str(episode), "--output", str(source)]).status == 0
    config = tmp_path / "streamer.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    chunked = invoke(["chunk", "--config", str(config), "--source", str(source)])
    assert chunked.status == 0, chunked.stderr
    chunks = [orjson.loads(line) for line in chunked.stdout.splitlines()]
    first = orjson.loads(source.read_bytes().split(b"\n", 1)[0])
    case = Case(
        tmp_path, config, source, tmp_path / "lanes", first["document_id"], first["semantic_digest"]
    )
    assert header("spells", case.document_id, case.digest)["source"]["document_id"] == episode.stem
    made = crd3_candidates(tmp_path, case, chunks, episode)
    lanes = tmp_path / "lanes"
    run = invoke(
        [
            "normalize",
            "--config",
            str(config),
            "--source",
            str(source),
            "--candidates-dir",
            str(made["folder"]),
            "--output-dir",
            str(lanes),
        ]
    )
    assert run.status == 0, run.stderr
    receipt = {lane["lane_id"]: lane for lane in orjson.loads(run.stdout)["lanes"]}
    assert (
        receipt["scene-descriptions"]["candidates"]
        == receipt["scene-descriptions"]["accepted"]
        == made["scenes"]
    )
    assert receipt["spells"]["accepted"] == made["spells"]
    assert receipt["spells"]["records"] == made["casts"]  # one record per cast
    assert receipt["npcs"]["rejected"] == {"outside_chunk": 1}
    assert receipt["npcs"]["records"] == made["speakers"]
    # the fragments of one alignment, cut by chunk boundaries, become one scene
    assert receipt["scene-descriptions"]["records"] == made["alignments"] < made["scenes"]
    bundle = invoke(
        [
            "bundle",
            "--config",
            str(config),
            "--source",
            str(source),
            "--lanes-dir",
            str(lanes),
            "--output",
            str(tmp_path / "bundle"),
        ]
    )
    assert bundle.status == 0, bundle.stderr
    assert orjson.loads(bundle.stdout)["normalized_lanes"] == 3
    valid = invoke(["validate", str(tmp_path / "bundle")])
    assert valid.status == 0, valid.stderr
    index = orjson.loads((tmp_path / "bundle" / "index.json").read_bytes())
    assert [lane["normalization"] for lane in index["lanes"]] == [{"support": "off"}] * 3
    print(episode.stem, orjson.dumps(list(receipt.values())).decode())

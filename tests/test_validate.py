"""``streamer validate``: every produced bundle is valid; each planted defect is reported,
content-safely, with exit status 3."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from streamer import api
from tests.bundle_support import (
    CRD3_EPISODES,
    crd3_case,
    demo_case,
    receipt,
    run_bundle,
    write_config,
)
from tests.support import Case, config_dict, invoke, npc, ref, spell, units, write_case

# Sixty units with opaque IDs, chunks of 10 overlapping by 2 (the chunk map fixes the
# positions 0, 9, 8, 17, 16, ...). With window 2 the evidence has three contexts:
# positions 3..10 (u5, u8), 28..36 (u30..u31, u34) and 48..52 (u50, an NPC).
IDS = [f"k{(i * 37) % 100:02d}" for i in range(60)]


def uid(position: int) -> str:
    return IDS[position]


def evidence_case(root: Path) -> Case:
    config = config_dict(["spells", "npcs"], ["spells", "npcs"], 2)
    config["pipeline"]["chunking"] = {"max_units": 10, "overlap_units": 2}
    lanes = {
        "spells": [
            spell("s1", ref(uid(5))),
            spell("s2", ref(uid(8)), ref(uid(30), uid(31))),
            spell("s3", ref(uid(34))),
        ],
        "npcs": [npc("n1", ref(uid(50)))],
    }
    return write_case(root, units(IDS), lanes, config=config)


def validate(folder: Path) -> tuple[int, list[str], bytes]:
    run = invoke(["validate", str(folder)])
    return run.status, run.stderr.splitlines(), run.stdout


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    out = tmp_path / "bundle"
    receipt(run_bundle(evidence_case(tmp_path / "case"), out))
    return out


def edit(path: Path, change: Callable[[Any], None]) -> None:
    document = orjson.loads(path.read_bytes())
    change(document)
    path.write_bytes(orjson.dumps(document) + b"\n")


def test_the_evidence_case_has_three_contexts(bundle: Path) -> None:
    evidence = orjson.loads((bundle / "evidence-context.json").read_bytes())
    assert [(c["start_unit_id"], c["end_unit_id"]) for c in evidence["contexts"]] == [
        (uid(3), uid(10)),
        (uid(28), uid(36)),
        (uid(48), uid(52)),
    ]


# -- valid bundles ---------------------------------------------------------------------


def test_valid_bundle_prints_a_one_line_summary(bundle: Path) -> None:
    status, errors, stdout = validate(bundle)
    assert (status, errors) == (0, [])
    assert orjson.loads(stdout) == {"status": "valid", "document_id": "doc-1", "files": 5}


def test_demo_bundle_is_valid(tmp_path: Path) -> None:
    receipt(run_bundle(demo_case(), tmp_path / "bundle"))
    assert validate(tmp_path / "bundle")[:2] == (0, [])


@pytest.mark.parametrize(
    "variant", ["disabled", "filtered", "missing lane", "no citations", "window 0", "empty"]
)
def test_produced_bundles_are_valid(tmp_path: Path, variant: str) -> None:
    case = evidence_case(tmp_path / "case")
    extra: list[str] = []
    if variant == "disabled":
        case.config = write_config(tmp_path / "c.yaml", config_dict(["spells", "npcs"], None))
    elif variant == "filtered":
        extra = ["--lane", "npcs"]
    elif variant == "missing lane":
        (case.lanes_dir / "spells.json").unlink()
    elif variant == "no citations":
        case = write_case(tmp_path / "none", units(IDS), {"spells": [], "npcs": []})
    elif variant == "window 0":
        case.config = write_config(
            tmp_path / "c.yaml", config_dict(["spells", "npcs"], ["npcs", "spells"], 0)
        )
    elif variant == "empty":
        case = write_case(tmp_path / "empty", [], {"spells": []})
    out = tmp_path / "bundle"
    receipt(run_bundle(case, out, *extra))
    assert validate(out)[:2] == (0, [])


def test_evidence_at_both_ends_of_the_document_is_valid(tmp_path: Path) -> None:
    lanes = {"spells": [spell("s1", ref(uid(0))), spell("s2", ref(uid(59)))]}
    case = write_case(tmp_path / "case", units(IDS), lanes, window=5)
    receipt(run_bundle(case, tmp_path / "bundle"))
    assert validate(tmp_path / "bundle")[:2] == (0, [])


@pytest.mark.skipif(not CRD3_EPISODES, reason="the CRD3 sample (../shared/data/crd3) is absent")
@pytest.mark.parametrize("episode", CRD3_EPISODES, ids=lambda path: path.stem)
def test_crd3_bundles_are_valid(tmp_path: Path, episode: Path) -> None:
    case = crd3_case(tmp_path / "case", episode)
    out = tmp_path / "bundle"
    api.bundle(api.load_config(case.config), case.source, case.lanes_dir, out)
    report = api.validate_bundle(out)
    assert report.problems == []
    assert report.document_id == f"crd3-{episode.stem.lower()}"


# -- planted defects: tests/test_validate_rules.py, one case per rule ----------------------

ERROR = "streamer: error: "


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    status, errors, stdout = validate(tmp_path / "nowhere")
    assert (status, errors, stdout) == (
        2,
        [ERROR + f"bundle folder {tmp_path / 'nowhere'} does not exist"],
        b"",
    )


def test_validate_says_not_a_bundle_without_walking_the_folder(tmp_path: Path) -> None:
    deep = tmp_path / "notes"
    for index in range(50):  # a folder that is no bundle, with files below it
        (deep / f"d{index}").mkdir(parents=True)
        (deep / f"d{index}" / "x.json").write_text("{}")
    run = invoke(["validate", "notes"], cwd=tmp_path)
    assert (run.status, run.stdout) == (3, b"")
    assert (
        run.stderr
        == """streamer: error: "index.json": missing: a bundle is described by its index\n"""
    )

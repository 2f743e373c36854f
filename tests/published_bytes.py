"""Every published byte, as SHA-256 digests: the committed fixtures and the CRD3 episodes
through import, chunk, evidence and bundle. ``tests/published-bytes.json`` holds the
digests the first implementation published; ``test_published_bytes`` checks that the code
of today publishes exactly those bytes (a refactor must change none).

Run ``python -m tests.published_bytes OUT_DIR`` to print the digests of this checkout
(the runner is then ``python -m streamer``, so it also runs against an older checkout
through ``PYTHONPATH``; the test runs streamer in its own process).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "fixtures" / "demo"
IMPORTS = REPO / "fixtures" / "import"
CRD3 = REPO.parent / "shared" / "data" / "crd3"
CRD3_EPISODES = ("C1E001", "C1E002", "C2E001", "C2E010")
IMPORT_CASES = (
    ("webvtt", "bridge.vtt"),
    ("srt", "bridge.srt"),
    ("text", "bridge.txt"),
    ("whisperx", "bridge-whisperx.json"),
    ("crd3", "bridge-crd3.json"),
)


# Runs streamer with these arguments and returns its standard output (an AssertionError
# naming the command when it fails).
Streamer = Callable[..., bytes]


def in_a_process(*args: str | Path) -> bytes:
    """``python -m streamer`` in a subprocess."""
    run = subprocess.run(
        [sys.executable, "-m", "streamer", *map(str, args)], capture_output=True, check=False
    )
    if run.returncode != 0:
        raise AssertionError(f"streamer {args[0]} failed: {run.stderr.decode()}")
    return run.stdout


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bundle(
    streamer: Streamer, config: Path, source: Path, lanes: Path, out: Path
) -> dict[str, str]:
    streamer("bundle", "--config", config, "--source", source, "--lanes-dir", lanes,
              "--output", out, "--quiet")  # fmt: skip
    return {
        str(path.relative_to(out)): _digest(path.read_bytes())
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


def _session(
    streamer: Streamer, name: str, config: Path, source: Path, lanes: Path, work: Path
) -> dict[str, str]:
    digests = {
        f"{name}/chunk": _digest(streamer("chunk", "--config", config, "--source", source)),
        f"{name}/evidence": _digest(
            streamer("evidence", "--config", config, "--source", source, "--lanes-dir", lanes)
        ),
    }
    bundle = work / f"{name}-bundle"
    bundle.parent.mkdir(parents=True, exist_ok=True)
    for file, digest in _bundle(streamer, config, source, lanes, bundle).items():
        digests[f"{name}/bundle/{file}"] = digest
    return digests


def _crd3(streamer: Streamer, episode: str, work: Path) -> dict[str, str]:
    source = work / f"{episode}.jsonl"
    imported = streamer("import", "crd3", CRD3 / "episodes" / f"{episode}.json")
    source.write_bytes(imported)
    header = json.loads(imported.split(b"\n", 1)[0])
    alignments = json.loads((CRD3 / "alignments" / f"{episode}_2_0.json").read_text("utf-8"))
    lanes = work / f"{episode}-lanes"
    lanes.mkdir()
    lane = {
        "lane_id": "scene-descriptions",
        "artifact_kind": "dnd/scene-descriptions",
        "schema": {
            "id": "notarius.dnd.scene_descriptions",
            "name": "notarius_dnd_scene_descriptions_v1",
            "version": "v1",
        },
        "source": header,
        "records": [
            {
                "scene_id": f"scene-{item['ALIGNMENT']['CHUNK ID']}",
                "location": None,
                "source_ref": {
                    "start_unit_id": f"t{item['ALIGNMENT']['TURN START']:05d}",
                    "end_unit_id": f"t{item['ALIGNMENT']['TURN END']:05d}",
                },
            }
            for item in alignments
        ],
    }
    (lanes / "scene-descriptions.json").write_text(json.dumps(lane), encoding="utf-8")
    config = work / f"{episode}.yaml"
    evidence = {"enabled": True, "window_units": 2, "lanes": ["scene-descriptions"]}
    config.write_text(
        yaml.safe_dump(
            {
                "pipeline": {
                    "lanes": [
                        {"id": "scene-descriptions", "artifact_kind": "dnd/scene-descriptions"}
                    ]
                },
                "output": {"module": "json", "options": {"evidence_context": evidence}},
            }
        ),
        encoding="utf-8",
    )
    digests = {f"crd3/{episode}/import": _digest(imported)}
    lines = streamer("import", "crd3", CRD3 / "episodes" / f"{episode}.json", "--unit", "line")
    digests[f"crd3/{episode}/import-lines"] = _digest(lines)
    digests.update(_session(streamer, f"crd3/{episode}", config, source, lanes, work))
    return digests


def published_digests(
    work: Path, *, crd3: bool = True, streamer: Streamer = in_a_process
) -> dict[str, str]:
    """The digest of every published document, by a name that says how it was made
    (``streamer``: how each command is run)."""
    digests: dict[str, str] = {}
    for fmt, name in IMPORT_CASES:
        digests[f"import/{fmt}"] = _digest(streamer("import", fmt, IMPORTS / name))
    bridge = work / "bridge.jsonl"
    bridge.write_bytes(streamer("import", "webvtt", IMPORTS / "bridge.vtt"))
    digests.update(
        _session(streamer, "bridge", IMPORTS / "streamer.yaml", bridge, IMPORTS / "lanes", work)
    )
    digests.update(
        _session(
            streamer, "demo", DEMO / "streamer.yaml", DEMO / "session.jsonl", DEMO / "lanes", work
        )
    )
    if crd3:
        for episode in CRD3_EPISODES:
            digests.update(_crd3(streamer, episode, work))
    return digests


if __name__ == "__main__":
    print(json.dumps(published_digests(Path(sys.argv[1])), indent=1, sort_keys=True))

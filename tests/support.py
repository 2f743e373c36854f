"""Builders for source documents, lane outputs and configurations used across the tests."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import orjson
import yaml
from typer.testing import CliRunner

from streamer.cli import app as cli_app
from streamer.cli.main import TERMINATING, main
from streamer.framework.chunking.chunker import Chunker
from streamer.framework.json.canonical import SemanticDigest
from streamer.framework.kinds.registry import SchemaIdentity

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CRD3 = SHARED / "data" / "crd3"
CRD3_MORE = SHARED / "data" / "crd3-more"

KIND_OF_LANE = {
    "spells": "dnd/spell-casts",
    "npcs": "dnd/npcs",
    "places": "dnd/places",
    "npc-interactions": "dnd/npc-interactions",
    "combat-turns": "dnd/combat-turns",
    "item-events": "dnd/item-events",
    "scene-descriptions": "dnd/scene-descriptions",
    "party-roster": "dnd/party-roster",
}


def unit(
    unit_id: str, text: str | None = None, *, kind: str = "utterance", **metadata: Any
) -> dict[str, Any]:
    text = f"text of {unit_id}" if text is None else text
    out: dict[str, Any] = {"unit_id": unit_id, "kind": kind, "text": text}
    if metadata:
        out["metadata"] = metadata
    return out


def units(ids: Iterable[str]) -> list[dict[str, Any]]:
    return [
        unit(unit_id, speaker="GM", start_ms=i * 10, end_ms=i * 10 + 5)
        for i, unit_id in enumerate(ids)
    ]


def digest_of(doc_units: Sequence[dict[str, Any]]) -> str:
    digest = SemanticDigest()
    for item in doc_units:
        plain = {k: v for k, v in item.items() if k != "source_ref"}
        if plain.get("metadata") == {}:
            del plain["metadata"]
        digest.add(plain)
    return digest.hexdigest()


def jsonl_bytes(
    document_id: str, doc_units: Sequence[dict[str, Any]], *, digest: bool = True
) -> bytes:
    header: dict[str, Any] = {"document_id": document_id}
    if digest:
        header["semantic_digest"] = digest_of(doc_units)
    return b"".join(orjson.dumps(item) + b"\n" for item in [header, *doc_units])


def json_bytes(
    document_id: str,
    doc_units: Sequence[dict[str, Any]],
    *,
    digest: bool = True,
    units_first: bool = False,
    indent: bool = False,
) -> bytes:
    doc: dict[str, Any] = {}
    if units_first:
        doc["units"] = list(doc_units)
    doc["document_id"] = document_id
    if digest:
        doc["semantic_digest"] = digest_of(doc_units)
    if not units_first:
        doc["units"] = list(doc_units)
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 if indent else 0)


def ref(start: str, end: str | None = None) -> dict[str, str]:
    return {"start_unit_id": start, "end_unit_id": end or start}


def lane_output(
    lane_id: str, records: list[dict[str, Any]], *, document_id: str, digest: str
) -> dict[str, Any]:
    kind = KIND_OF_LANE[lane_id]
    return {
        "lane_id": lane_id,
        "artifact_kind": kind,
        "schema": SchemaIdentity.for_kind(kind).to_json(),
        "source": {"document_id": document_id, "semantic_digest": digest},
        "records": records,
    }


def spell(record_id: str, *refs: dict[str, str]) -> dict[str, Any]:
    return {
        "spell_cast_id": record_id,
        "spell": "Fireball",
        "caster": None,
        "source_refs": list(refs),
    }


def npc(record_id: str, *refs: dict[str, str]) -> dict[str, Any]:
    return {"npc_id": record_id, "name": "Brenna", "source_refs": list(refs)}


def turn(record_id: str, *refs: dict[str, str]) -> dict[str, Any]:
    return {"turn_id": record_id, "combatant": "Grog", "round": 1, "source_refs": list(refs)}


def scene(record_id: str, reference: dict[str, str]) -> dict[str, Any]:
    return {"scene_id": record_id, "location": None, "source_ref": reference}


RECORD_MAKERS = {"spells": spell, "npcs": npc, "combat-turns": turn}


def config_dict(
    lanes: Sequence[str], allowlist: Sequence[str] | None, window: int | None = 3
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "pipeline": {"lanes": [{"id": lane, "artifact_kind": KIND_OF_LANE[lane]} for lane in lanes]}
    }
    if allowlist is not None:
        evidence: dict[str, Any] = {"enabled": True, "lanes": list(allowlist)}
        if window is not None:
            evidence["window_units"] = window
        config["output"] = {"module": "json", "options": {"evidence_context": evidence}}
    return config


@dataclass
class Case:
    """A test case on disk: configuration, source document and lane outputs."""

    root: Path
    config: Path
    source: Path
    lanes_dir: Path
    document_id: str
    digest: str

    def args(self, *extra: str, source: str | None = None) -> list[str]:
        return [
            "evidence",
            "--config",
            str(self.config),
            "--source",
            source or str(self.source),
            "--lanes-dir",
            str(self.lanes_dir),
            *extra,
        ]


def write_case(
    root: Path,
    doc_units: Sequence[dict[str, Any]],
    lanes: dict[str, list[dict[str, Any]]],
    *,
    configured: Sequence[str] | None = None,
    allowlist: Sequence[str] | None = None,
    window: int | None = 3,
    form: str = "jsonl",
    document_id: str = "doc-1",
    config: dict[str, Any] | None = None,
) -> Case:
    root.mkdir(parents=True, exist_ok=True)
    digest = digest_of(doc_units)
    source = root / ("source.jsonl" if form == "jsonl" else "source.json")
    source.write_bytes(
        jsonl_bytes(document_id, doc_units)
        if form == "jsonl"
        else json_bytes(document_id, doc_units)
    )
    lanes_dir = root / "lanes"
    lanes_dir.mkdir(exist_ok=True)
    for lane_id, records in lanes.items():
        document = lane_output(lane_id, records, document_id=document_id, digest=digest)
        (lanes_dir / f"{lane_id}.json").write_bytes(orjson.dumps(document))
    configured = list(configured or lanes)
    if config is None:
        config = config_dict(configured, list(allowlist or lanes), window)
    config_path = root / "streamer.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    return Case(root, config_path, source, lanes_dir, document_id, digest)


@dataclass
class Run:
    status: int
    stdout: bytes
    stderr: str


def run_cli(
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    path: Sequence[Path] = (),
) -> Run:
    """Run ``python -m streamer`` as a user would, in a subprocess (``path``: folders put
    before the repository on its ``PYTHONPATH``, e.g. where a plugin is installed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [*path, REPO]))}
    completed = subprocess.run(
        [sys.executable, "-m", "streamer", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        check=False,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )
    return Run(completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace"))


def invoke(
    args: Sequence[str],
    *,
    input: bytes | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str | None] | None = None,
) -> Run:
    """Run ``streamer`` in this process, as ``run_cli`` runs it in a subprocess: the entry
    point ``main`` (its error model, its exit status) with typer's ``CliRunner`` standing in
    for the standard streams (``input``: standard input, empty when ``None``; ``env``:
    variables set, or removed when ``None``). What ``main`` sets for its process (the
    terminating signals' handlers, the unraisable hook, ``--debug``) is put back after."""
    handlers = {signum: signal.getsignal(signum) for signum in TERMINATING}
    hook = sys.unraisablehook
    status: int = 0
    runner = CliRunner()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stdout, stderr, _ = stack.enter_context(runner.isolation(input=input, env=env))
        # The width of help a process writing to a pipe gets (80 columns, less click's
        # margin of 2): the runner forces 80 (put back when its isolation ends).
        click.formatting.FORCED_WIDTH = 78
        try:
            main(list(args))
        except SystemExit as exited:
            status = exited.code if isinstance(exited.code, int) else 1
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            sys.unraisablehook = hook
            cli_app._debug["on"] = False
        sys.stdout.flush()
        sys.stderr.flush()
        out, err = stdout.getvalue(), stderr.getvalue()
    return Run(status, out, err.decode("utf-8", "replace"))


def shown_on_a_terminal(
    args: Sequence[str], stream: str, cwd: Path | None = None
) -> tuple[int, bytes, bytes]:
    """Run ``python -m streamer`` with its ``stream`` (``"stdout"`` or ``"stderr"``) on a
    pseudo-terminal and the other on a pipe: ``(status, what the terminal showed, what the
    other stream carried)``."""
    master, slave = pty.openpty()
    on_pty = {stream: slave}
    process = subprocess.Popen(
        [sys.executable, "-m", "streamer", *args],
        stdin=subprocess.DEVNULL,
        stdout=on_pty.get("stdout", subprocess.PIPE),
        stderr=on_pty.get("stderr", subprocess.PIPE),
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal's other end closed: the process is done with it
            break
        if not data:
            break
        shown += data
    os.close(master)
    other = process.stderr if stream == "stdout" else process.stdout
    assert other is not None
    rest = other.read()
    other.close()
    return process.wait(timeout=120), bytes(shown), rest


def published_form(item: dict[str, Any]) -> dict[str, Any]:
    """A unit as the evidence document publishes it, written out independently of streamer."""
    out: dict[str, Any] = {
        "unit_id": item["unit_id"],
        "kind": item["kind"],
        "text": item["text"],
        "source_ref": {"start_unit_id": item["unit_id"], "end_unit_id": item["unit_id"]},
    }
    metadata = item.get("metadata") or {}
    if metadata:
        out["metadata"] = {
            k: metadata[k] for k in ("speaker", "start_ms", "end_ms") if k in metadata
        }
    return out


LAUNCHER = REPO / "benchmarks" / "launch.py"


def peak_rss_of(command: Sequence[str], report: Path) -> int:
    """Run ``command`` from ``benchmarks/launch.py`` (its own peak RSS, not pytest's, which
    a forked child would start from), fail unless it exits 0, and return its peak RSS in
    bytes; ``report`` is where the launcher writes its rusage."""
    completed = subprocess.run(
        [sys.executable, "-S", str(LAUNCHER), str(report), *command],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode("utf-8", "replace")
    result = orjson.loads(report.read_bytes())
    assert result["status"] == 0, completed.stderr.decode("utf-8", "replace")
    return int(result["peak_rss"])


def live_children() -> set[int]:
    """The live child processes of this process (every thread's)."""
    found: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            found |= {int(pid) for pid in (task / "children").read_text().split()}
        except FileNotFoundError:  # the thread ended since it was listed
            continue
    return found


def stopped(status: int) -> bytes:
    """What a command ended by a signal prints when it kept nothing: one line naming how
    it ended (``streamer: interrupted (nothing published)`` for Ctrl-C)."""
    how = {129: "hung up", 130: "interrupted", 131: "quit", 143: "terminated"}[status]
    return f"streamer: {how} (nothing published)\n".encode()


def chunk_map_entries(ids: Sequence[str], max_units: int, overlap: int) -> list[dict[str, Any]]:
    """The chunk map's entries for units ``ids``: the chunks the framework Chunker cuts,
    fed item by item (the reference the bundle's chunk map is checked against)."""
    chunker: Chunker[str] = Chunker(max_units, overlap)
    made = [chunk for unit_id in ids for chunk in chunker.add(unit_id)]
    made += list(chunker.finish())
    return [
        {
            "chunk_id": chunk.chunk_id,
            "start_unit_id": chunk.items[0],
            "end_unit_id": chunk.items[-1],
            "unit_count": len(chunk.items),
        }
        for chunk in made
    ]

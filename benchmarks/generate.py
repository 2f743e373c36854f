"""Deterministic session transcripts, lane outputs and a configuration: the data sets.

``generate(root, target_bytes, profile=...)`` writes the units of a data profile
(``benchmarks.profiles``: synthetic, short-ascii, crd3), in one streaming pass (the
document is never held in memory), as a JSON document (``source.json``) and as JSON
Lines (``source.jsonl``) until the JSON Lines file reaches ``target_bytes``; then the lane
outputs (``lanes/<lane>.json``), a configuration (``streamer.yaml``, window 3) and
``meta.json`` (what was generated, with the expected digest).

The semantic digest goes in the header, before the units it covers. It is written as a
fixed-width placeholder (``sha256:`` and 64 zeros), computed with streamer's own
``SemanticDigest`` while the units are written, and patched in place at the end: one pass,
no temporary copy.

Everything is a function of the profile and the seed. Unit ``i`` is the same whatever the
target size (the units of a small document are the prefix of a bigger one), and unit IDs
are a function of the position (``benchmarks.profiles.unit_ids``), so no ID order matches
document order and the lane outputs are the same for every profile of the same length.

Usage: ``python -m benchmarks.generate --size 100MB --out benchmarks/data/100MB
[--profile short-ascii]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchmarks.profiles import DEFAULT_PROFILE, PROFILES
from benchmarks.profiles.unit_ids import DEFAULT_SEED, unit_id
from streamer.framework.json.canonical import SemanticDigest

DEFAULT_SHARE = 0.01
DEFAULT_REFERENCES = 10_000
DEFAULT_WINDOW = 3
FORMS = ("json", "jsonl")
SOURCE_NAMES = {"json": "source.json", "jsonl": "source.jsonl"}
PLACEHOLDER = "sha256:" + "0" * 64

# lane id -> artifact kind: the five D&D kinds with plural references.
LANES = {
    "spells": "dnd/spell-casts",
    "npcs": "dnd/npcs",
    "npc-interactions": "dnd/npc-interactions",
    "combat-turns": "dnd/combat-turns",
    "item-events": "dnd/item-events",
}

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?i?B?)\s*\Z", re.IGNORECASE)
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
    "k": 10**3,
    "m": 10**6,
    "g": 10**9,
    "t": 10**12,
}


def parse_size(text: str) -> int:
    """``10MB`` -> 10_000_000 (decimal units; ``MiB`` and ``GiB`` are binary)."""
    match = _SIZE.match(text)
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (e.g. 10MB, 1.5GB, 512MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def format_size(size: int) -> str:
    """The inverse of ``parse_size`` for round sizes: 10_000_000 -> ``10MB``."""
    for unit, factor in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= factor and size % (factor // 10) == 0:
            value = size / factor
            return f"{value:g}{unit}"
    return f"{size}B"


# -- writing units ------------------------------------------------------------------


def _written(unit: dict[str, Any], with_self_reference: bool) -> bytes:
    if not with_self_reference:
        return orjson.dumps(unit)
    unit_id_ = unit["unit_id"]
    written = {
        "unit_id": unit_id_,
        "kind": unit["kind"],
        "text": unit["text"],
        "source_ref": {"start_unit_id": unit_id_, "end_unit_id": unit_id_},
    }
    if "metadata" in unit:
        written["metadata"] = unit["metadata"]
    return orjson.dumps(written)


@dataclass
class Sources:
    paths: dict[str, Path]
    units: int
    digest: str
    sizes: dict[str, int]


def write_sources(
    root: Path,
    target_bytes: int,
    *,
    forms: Sequence[str] = FORMS,
    seed: int = DEFAULT_SEED,
    profile: str = DEFAULT_PROFILE,
    document_id: str = "bench-session",
    batch: int = 256,
) -> Sources:
    """Write the units in every form of ``forms`` until the JSON Lines form (or, without
    it, the JSON form) holds at least ``target_bytes``."""
    root.mkdir(parents=True, exist_ok=True)
    head = orjson.dumps({"document_id": document_id, "semantic_digest": PLACEHOLDER})
    heads = {"jsonl": head + b"\n", "json": head[:-1] + b',"units":[\n'}
    offset = head.index(PLACEHOLDER.encode()) + len("sha256:")
    paths = {form: root / SOURCE_NAMES[form] for form in forms}
    files = {form: open(paths[form], "wb", buffering=1 << 20) for form in forms}  # noqa: SIM115
    try:
        for form, out in files.items():
            out.write(heads[form])
        jsonl, json_ = files.get("jsonl"), files.get("json")
        size = len(heads["jsonl"] if jsonl else heads["json"])
        step = 1 if jsonl else 2  # bytes of separator per unit in the measured form
        digest = SemanticDigest()
        add = digest.add
        units = PROFILES[profile].iter_units(seed)
        count = 0
        while size < target_bytes:
            lines = []
            for _ in range(batch):
                unit, with_reference = next(units)
                add(unit)
                lines.append(_written(unit, with_reference))
            count += batch
            if jsonl:
                data = b"\n".join(lines) + b"\n"
                jsonl.write(data)
                size += len(data)
            if json_:
                data = b",\n".join(lines)
                json_.write((b",\n" if count > batch else b"") + data)
                if not jsonl:
                    size += len(data) + step
        if json_:
            json_.write(b"\n]}\n")
        hexdigest = digest.hexdigest()
        for out in files.values():
            out.seek(offset)
            out.write(hexdigest[len("sha256:") :].encode())
    finally:
        for out in files.values():
            out.close()
    return Sources(
        paths, count, hexdigest, {form: path.stat().st_size for form, path in paths.items()}
    )


# -- references and lane outputs ------------------------------------------------------


def make_references(
    units: int,
    *,
    seed: int = DEFAULT_SEED,
    share: float = DEFAULT_SHARE,
    count: int = DEFAULT_REFERENCES,
) -> tuple[list[tuple[str, int, int]], int]:
    """``count`` references ``(lane, start position, end position)`` citing about ``share``
    of ``units``; also returns how many units they cite.

    The cited units form disjoint spans (one in each of equal slots of the document, at a
    random place in it); each span is cited whole once, and the other references cite a
    random sub-range of a random span, so references overlap and several lanes cite the
    same range.
    """
    rng = random.Random(seed ^ 0x5EED)
    cited = max(1, round(share * units))
    spans_count = max(1, min(count // 2, cited // 4, units))
    slot = units // spans_count
    average = max(1, cited // spans_count)
    spans: list[tuple[int, int]] = []
    for index in range(spans_count):
        length = min(slot, max(1, rng.randint(max(1, average // 2), average + average // 2)))
        start = index * slot + rng.randrange(slot - length + 1)
        spans.append((start, start + length - 1))
    lanes = list(LANES)
    references = [(rng.choice(lanes), start, end) for start, end in spans][:count]
    while len(references) < count:
        start, end = rng.choice(spans)
        a = rng.randint(start, end)
        b = a if rng.random() < 0.5 else rng.randint(a, end)
        references.append((rng.choice(lanes), a, b))
    rng.shuffle(references)
    return references, sum(end - start + 1 for start, end in spans)


_SPELLS = ("Fireball", "Hunter's Mark", "Cure Wounds", "Thunderwave", "Counterspell", "Hex")
_CASTERS = ("Keyleth", "Vex'ahlia", "Scanlan", "Pike", "Percy", None)
_NPCS = ("Brenna", "Gilmore", "Lady Kima", "Allura", "Shaun Gilmore", "Zahra", "Kashaw")
_ITEMS = ("Bag of Holding", "Potion of Healing", "Fenthras", "Whisper", "Bad News")
_EVENTS = ("acquired", "lost", "used", "transferred")
_COMBATANTS = ("Grog", "Vax'ildan", "Vex'ahlia", "Goblin 1", "Young Dragon", "Percy")


def _record(lane: str, number: int, refs: list[dict[str, str]], rng: random.Random) -> Any:
    if lane == "spells":
        return {
            "spell_cast_id": f"spell-{number:06d}",
            "spell": rng.choice(_SPELLS),
            "caster": rng.choice(_CASTERS),
            "source_refs": refs,
        }
    if lane == "npcs":
        return {"npc_id": f"npc-{number:06d}", "name": rng.choice(_NPCS), "source_refs": refs}
    if lane == "npc-interactions":
        return {
            "interaction_id": f"interaction-{number:06d}",
            "npc": rng.choice(_NPCS),
            "source_refs": refs,
        }
    if lane == "combat-turns":
        return {
            "turn_id": f"turn-{number:06d}",
            "combatant": rng.choice(_COMBATANTS),
            "round": rng.choice((None, 1, 2, 3, 4, 5)),
            "source_refs": refs,
        }
    return {
        "item_event_id": f"item-event-{number:06d}",
        "item": rng.choice(_ITEMS),
        "event": rng.choice(_EVENTS),
        "holder": rng.choice(_CASTERS),
        "source_refs": refs,
    }


def write_lanes(
    lanes_dir: Path,
    references: Sequence[tuple[str, int, int]],
    *,
    document_id: str,
    digest: str,
    seed: int = DEFAULT_SEED,
) -> None:
    """Group each lane's references into records of one to three distinct references."""
    rng = random.Random(seed ^ 0x1A7E)
    lanes_dir.mkdir(parents=True, exist_ok=True)
    by_lane: dict[str, list[dict[str, str]]] = {lane: [] for lane in LANES}
    for lane, start, end in references:
        by_lane[lane].append(
            {"start_unit_id": unit_id(start, seed), "end_unit_id": unit_id(end, seed)}
        )
    for lane, refs in by_lane.items():
        records: list[Any] = []
        index = 0
        while index < len(refs):
            group: list[dict[str, str]] = []
            for ref in refs[index : index + rng.randint(1, 3)]:
                if ref in group:
                    break  # a record cites each reference once: it starts the next record
                group.append(ref)
                index += 1
            records.append(_record(lane, len(records) + 1, group, rng))
        kind = LANES[lane]
        schema_id = "notarius." + kind.replace("/", ".").replace("-", "_")
        document = {
            "lane_id": lane,
            "artifact_kind": kind,
            "schema": {
                "id": schema_id,
                "name": schema_id.replace(".", "_") + "_v1",
                "version": "v1",
            },
            "source": {"document_id": document_id, "semantic_digest": digest},
            "records": records,
        }
        (lanes_dir / f"{lane}.json").write_bytes(orjson.dumps(document))


def write_config(path: Path, window: int = DEFAULT_WINDOW) -> None:
    lines = ["# Generated by benchmarks/generate.py", "pipeline:", "  lanes:"]
    lines += [f"    - {{id: {lane}, artifact_kind: {kind}}}" for lane, kind in LANES.items()]
    lines += [
        "output:",
        "  module: json",
        "  options:",
        "    evidence_context:",
        "      enabled: true",
        f"      window_units: {window}",
        f"      lanes: [{', '.join(LANES)}]",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- the whole data set ---------------------------------------------------------------


@dataclass
class Dataset:
    """A generated data set on disk, as recorded in its ``meta.json``."""

    root: Path
    target_bytes: int
    seed: int
    document_id: str
    digest: str
    units: int
    sizes: dict[str, int]
    references: int
    reference_units: int
    cited_units: int
    share: float
    window: int
    generate_seconds: float = 0.0
    params: dict[str, Any] = field(default_factory=dict)
    profile: str = DEFAULT_PROFILE

    @property
    def config(self) -> Path:
        return self.root / "streamer.yaml"

    @property
    def lanes_dir(self) -> Path:
        return self.root / "lanes"

    def source(self, form: str) -> Path:
        return self.root / SOURCE_NAMES[form]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["root"] = str(self.root)
        return data

    @classmethod
    def load(cls, root: Path) -> Dataset:
        data = orjson.loads((root / "meta.json").read_bytes())
        data["root"] = root
        return cls(**data)


def generate(
    root: Path,
    target_bytes: int,
    *,
    forms: Sequence[str] = FORMS,
    seed: int = DEFAULT_SEED,
    share: float = DEFAULT_SHARE,
    references: int = DEFAULT_REFERENCES,
    window: int = DEFAULT_WINDOW,
    reference_units: int | None = None,
    document_id: str = "bench-session",
    profile: str = DEFAULT_PROFILE,
) -> Dataset:
    """Generate a data set in ``root`` (see the module docstring).

    ``reference_units``: place the references among the first ``reference_units`` units
    only (default: all). Two data sets of different sizes with the same seed and the same
    ``reference_units`` cite the same units with the same records.
    """
    params = {
        "profile": profile,
        "forms": sorted(forms),
        "share": share,
        "references": references,
        "window": window,
        "reference_units": reference_units,
        "document_id": document_id,
    }
    began = time.perf_counter()
    sources = write_sources(
        root, target_bytes, forms=forms, seed=seed, profile=profile, document_id=document_id
    )
    span = sources.units if reference_units is None else min(reference_units, sources.units)
    refs, cited = make_references(span, seed=seed, share=share, count=references)
    write_lanes(root / "lanes", refs, document_id=document_id, digest=sources.digest, seed=seed)
    write_config(root / "streamer.yaml", window)
    dataset = Dataset(
        root=root,
        target_bytes=target_bytes,
        seed=seed,
        document_id=document_id,
        digest=sources.digest,
        units=sources.units,
        sizes=sources.sizes,
        references=len(refs),
        reference_units=span,
        cited_units=cited,
        share=share,
        window=window,
        generate_seconds=round(time.perf_counter() - began, 3),
        params=params,
        profile=profile,
    )
    (root / "meta.json").write_bytes(orjson.dumps(dataset.to_json(), option=orjson.OPT_INDENT_2))
    return dataset


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.generate", description=__doc__)
    parser.add_argument("--size", required=True, help="target size of source.jsonl, e.g. 100MB")
    parser.add_argument("--out", required=True, type=Path, help="the folder to write")
    parser.add_argument("--forms", default="json,jsonl", help="json, jsonl or both")
    parser.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--share", type=float, default=DEFAULT_SHARE, help="share of cited units")
    parser.add_argument("--references", type=int, default=DEFAULT_REFERENCES)
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    args = parser.parse_args(argv)
    forms = [form.strip() for form in args.forms.split(",") if form.strip()]
    if not forms or set(forms) - set(FORMS):
        parser.error("--forms takes json, jsonl or json,jsonl")
    absent = PROFILES[args.profile].missing()
    if absent:
        parser.error(f"profile {args.profile}: {absent}")
    dataset = generate(
        args.out,
        parse_size(args.size),
        forms=forms,
        seed=args.seed,
        share=args.share,
        references=args.references,
        window=args.window,
        profile=args.profile,
    )
    sys.stdout.write(orjson.dumps(dataset.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

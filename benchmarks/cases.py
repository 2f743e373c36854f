"""One case of the benchmark (a data set in one form), its settings and its results."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchmarks.generate import Dataset, format_size


@dataclass(frozen=True)
class Settings:
    """What the command line decided for every case."""

    repeat: int = 1
    timeout: float = 3600.0
    naive_max: int = 10**9
    jq_max: int = 10**9
    peers_max: int = 3 * 10**9  # JSON Lines
    peers_json_max: int = 10**9  # one JSON document: the peers hold it parsed, ~9x
    floor_variants: str = "all"  # or "first": the first variant of a form only
    floor_variants_max: int | None = None  # above this size, the first variant only


@dataclass
class Case:
    """One data set in one form, where the outputs go, and what earlier contenders left."""

    dataset: Dataset
    form: str
    out: Path
    settings: Settings = field(default_factory=Settings)
    outputs: dict[str, Path] = field(default_factory=dict)  # contender name -> its output

    @property
    def source(self) -> Path:
        return self.dataset.source(self.form)

    @property
    def profile(self) -> str:
        return self.dataset.profile

    @property
    def size(self) -> str:
        return format_size(self.dataset.target_bytes)

    @property
    def label(self) -> str:
        return f"{self.profile} {self.size} {self.form}"

    @property
    def evidence_args(self) -> list[str]:
        return ["--config", str(self.dataset.config), "--lanes-dir", str(self.dataset.lanes_dir)]

    def references(self, suffix: str = "json") -> Path:
        """Every reference of the lane outputs, written once per data set: ``json`` as a
        list of ``[start_unit_id, end_unit_id]``, ``jsonl`` one object a line."""
        path = self.out / f"references.{suffix}"
        if not path.exists():
            pairs = flat_references(self.dataset)
            if suffix == "json":
                path.write_bytes(orjson.dumps(pairs))
            else:
                lines = [orjson.dumps({"start_unit_id": s, "end_unit_id": e}) for s, e in pairs]
                path.write_bytes(b"\n".join(lines) + b"\n")
        return path


def flat_references(dataset: Dataset) -> list[list[str]]:
    refs: list[list[str]] = []
    for path in sorted(dataset.lanes_dir.glob("*.json")):
        for record in orjson.loads(path.read_bytes())["records"]:
            refs += [[ref["start_unit_id"], ref["end_unit_id"]] for ref in record["source_refs"]]
    return refs


@dataclass
class Result:
    profile: str
    size: str
    form: str
    contender: str
    input_bytes: int
    state: str  # ok, failed, timeout, skipped
    wall: float | None = None
    cpu: float | None = None
    peak_rss: int | None = None
    check: str = ""
    note: str = ""
    variant: str = ""  # the kept variant, when the contender tried several
    variants: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mb_per_s(self) -> float | None:
        if not self.wall:
            return None
        return self.input_bytes / 1e6 / self.wall

    @classmethod
    def of(cls, case: Case, contender: str, state: str, **values: Any) -> Result:
        return cls(
            case.profile,
            case.size,
            case.form,
            contender,
            case.source.stat().st_size,
            state,
            **values,
        )

"""The size-aware skip rules: which contenders hold the whole input in memory, how much
they need, and when they are skipped so that a run never swaps the machine.

Each rule has a size limit (a command-line option) and a memory factor: the peak RSS per
input byte measured at 300 MB on the reference machine, rounded up (naive 1.2-2.3 GB,
jq 1.3-2.4 GB, polars and DuckDB 0.64-0.79 GB on JSON Lines and 1.5-2.5 GB on JSON).
A contender is skipped above its limit, and also, whatever the limit, when its estimated
peak would exceed ``RAM_SHARE`` of the machine's memory (the page cache holds the input
too, but gives it back). The note says which, with the numbers, and ``RESULTS.md`` lists
the rules in effect.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchmarks.generate import format_size

if TYPE_CHECKING:
    from benchmarks.cases import Case

RAM_SHARE = 0.8
GB = 10**9


@dataclass(frozen=True)
class Rule:
    contenders: str  # who, for the table
    option: str  # the command-line option of the limit
    setting: str  # its name in Settings
    form: str  # "json", "jsonl" or "" (both)
    factor: float  # peak RSS / input bytes, measured, rounded up
    measured: str  # what was measured at 300 MB


RULES = (
    Rule("naive", "--naive-max", "naive_max", "", 8, "1.2-2.3 GB at 300 MB"),
    Rule("jq", "--jq-max", "jq_max", "", 8.5, "1.3-2.4 GB at 300 MB"),
    Rule("polars, duckdb", "--peers-max", "peers_max", "jsonl", 3, "0.64-0.79 GB at 300 MB"),
    Rule("polars, duckdb", "--peers-json-max", "peers_json_max", "json", 9, "1.5-2.5 GB at 300 MB"),
)


def _amount(size: float) -> str:
    return f"{size / GB:.1f} GB" if size >= GB / 10 else f"{size / 10**6:.0f} MB"


def machine_ram() -> int:
    """The machine's memory in bytes (0 when unknown)."""
    with contextlib.suppress(ValueError, OSError, AttributeError):
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return 0


def rule_for(contender: str, form: str) -> Rule | None:
    for rule in RULES:
        if contender in rule.contenders.split(", ") and rule.form in ("", form):
            return rule
    return None


def too_big(case: Case, contender: str, ram: int | None = None) -> str | None:
    """Why ``contender`` does not run on ``case`` (its input too big), or ``None``."""
    rule = rule_for(contender, case.form)
    if rule is None:
        return None
    size = case.dataset.target_bytes
    need = rule.factor * size
    limit: int = getattr(case.settings, rule.setting)
    if size > limit:
        return (
            f"{format_size(size)} above {rule.option} {format_size(limit)} "
            f"(would need ~{need / GB:.0f} GB: {rule.factor:g}x the input)"
        )
    ram = machine_ram() if ram is None else ram
    if ram and need > RAM_SHARE * ram:
        return (
            f"would need ~{need / GB:.0f} GB ({rule.factor:g}x the input), more than "
            f"{RAM_SHARE:.0%} of the machine's {ram / GB:.0f} GB"
        )
    return None


def rules_table(settings: object, sizes: list[int], ram: int | None = None) -> list[str]:
    """The rules in effect, and at each size run whether the contenders ran."""
    ram = machine_ram() if ram is None else ram
    head = "| contenders | form | limit | memory (measured) | " + " | ".join(
        f"at {format_size(s)}" for s in sizes
    )
    lines = [head + " |", "| --- | --- | --- | --- |" + " --- |" * len(sizes)]
    for rule in RULES:
        limit: int = getattr(settings, rule.setting)
        cells = []
        for size in sizes:
            need = rule.factor * size
            if size > limit:
                cells.append(f"skipped (~{_amount(need)})")
            elif ram and need > RAM_SHARE * ram:
                cells.append(f"skipped (~{_amount(need)} > {RAM_SHARE:.0%} of RAM)")
            else:
                cells.append(f"runs (~{_amount(need)})")
        lines.append(
            f"| {rule.contenders} | {rule.form or 'both'} | `{rule.option} {format_size(limit)}` "
            f"| {rule.factor:g}x the input ({rule.measured}) | " + " | ".join(cells) + " |"
        )
    return lines

"""The rules engine's time on a CRD3 episode and on that episode repeated (fresh unit
IDs), and the prefilter's two forms: Aho-Corasick (pyahocorasick, what streamer uses)
against one combined regular expression over the same keywords. Correctness beside the
timing: both gates pick the same units, and the prefiltered rules give the candidates of
the rules run on every unit (on the single episode).

    .venv/bin/python -m benchmarks.rules_bench ../shared/data/crd3/episodes/C1E002.json 270
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from streamer.domain.dnd.npc_rules import NpcRules
from streamer.domain.dnd.prefilter import Gate
from streamer.domain.dnd.rules import SpellCastRules, SpellRules
from streamer.framework.kinds.extraction import RulesContext, RulesExtractor, ShownUnit

MB = 1_000_000


def units_of(path: Path, repeats: int) -> list[ShownUnit]:
    turns = json.loads(path.read_bytes())["TURNS"]
    base = [
        (
            ", ".join(n.strip() for n in t["NAMES"]) or None,
            " ".join(u.strip() for u in t["UTTERANCES"]),
        )
        for t in turns
    ]
    return [
        ShownUnit(f"r{r:04d}-{i:05d}", speaker, text)
        for r in range(repeats)
        for i, (speaker, text) in enumerate(base)
    ]


def chunks(units: list[ShownUnit]) -> list[list[ShownUnit]]:
    return [units[start : start + 100] for start in range(0, len(units), 90)]


def timed(
    rules: RulesExtractor, parts: list[list[ShownUnit]], context: RulesContext
) -> tuple[float, int]:
    start = time.perf_counter()
    found = sum(len(rules(part, context)) for part in parts)
    return time.perf_counter() - start, found


def regex_gate(keywords: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(keywords, key=len, reverse=True))))


def main() -> None:
    path, repeats = Path(sys.argv[1]), int(sys.argv[2])
    size = path.stat().st_size
    context = RulesContext({"ORION": "Tiberius Stormwind", "SAM": "Scanlan Shorthalt"})
    one = chunks(units_of(path, 1))
    fast, found = timed(SpellCastRules(), one, context)
    slow, same = timed(SpellCastRules(prefilter=False), one, context)
    assert found == same
    print(
        f"episode {path.name} {size / MB:.2f} MB: prefiltered {fast:.3f} s "
        f"({size / MB / fast:.0f} MB/s), every unit {slow:.3f} s, {found} candidates"
    )
    many = chunks(units_of(path, repeats))
    total = size * repeats
    seconds, found = timed(SpellCastRules(), many, context)
    print(
        f"x{repeats} {total / MB:.0f} MB: spells {seconds:.2f} s "
        f"({total / MB / seconds:.0f} MB/s), {found} candidates"
    )
    npc_context = RulesContext({}, {"trinket": "Trinket", "kima": "Kima"})
    seconds, found = timed(NpcRules(), many, npc_context)
    print(f"x{repeats}: npcs {seconds:.2f} s ({total / MB / seconds:.0f} MB/s), {found} candidates")
    gate = Gate(SpellRules.of(context).gate.keywords)  # the block's pass alone
    pattern = regex_gate(list(gate.keywords))
    texts = [[unit.text for unit in part] for part in many]
    start = time.perf_counter()
    picked_ac = [gate.units(part) for part in texts]
    ac = time.perf_counter() - start
    start = time.perf_counter()
    picked_re = []
    for part in texts:
        low = "\x00".join(part).lower()
        ends: list[int] = []
        found_units: list[int] = []
        position = 0
        for text in part:
            position += len(text) + 1
            ends.append(position)
        index = 0
        for match in pattern.finditer(low):
            while ends[index] <= match.start():
                index += 1
            if not found_units or found_units[-1] != index:
                found_units.append(index)
        picked_re.append(found_units)
    rx = time.perf_counter() - start
    assert picked_ac == picked_re
    print(
        f"gate over {len(gate.keywords)} keywords: Aho-Corasick {ac:.2f} s "
        f"({total / MB / ac:.0f} MB/s), combined regex {rx:.2f} s ({total / MB / rx:.0f} MB/s)"
    )


if __name__ == "__main__":
    main()

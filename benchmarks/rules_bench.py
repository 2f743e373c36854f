"""The rules engine alone, in MB/s of transcript, and the prefilter's pass in three forms.

    python -m benchmarks.rules_bench                  # a 200 MB CRD3 transcript, 3 runs
    python -m benchmarks.rules_bench --size 30MB --repeat 1

The transcript is ``benchmarks.run_bench``'s (the turns of the four episodes of
``../shared/data/crd3`` repeated in order and renumbered to ``--size``, same seed; without
them, generated turns), imported by ``streamer import crd3``. Its units are cut as the
default chunk plan cuts them (100 units, 10 shared with the next chunk) and read back one
chunk at a time; only the calls are timed (CPU time of this process, user + system),
each contender in turn on the same chunk, so they share the machine's state:

- ``spells``: the spell-cast rules as ``engine: rules`` runs them (prefiltered), with the
  glossary's party as casters;
- ``spells, every unit`` (``SpellCastRules(prefilter=False)``; the first run only): the
  check that the prefilter changes nothing, candidate for candidate, and the rules' time
  without it;
- ``npcs``: the NPC rules with two glossary names;
- the block's pass of the spell gate alone (over the units in ASCII, each word between
  spaces: ``WordGate``; the keywords the gate looks for), by Hyperscan (what streamer
  uses since 2 December 2026), by Aho-Corasick (``pyahocorasick``, what it used before)
  and by one combined regular expression over the same keywords (the first run only: it
  is slow); checked: all find the same units.

MB/s are the transcript's bytes over a contender's CPU seconds (median of ``--repeat``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import ahocorasick
import hyperscan
import msgspec

from benchmarks.environment import load_average, print_result
from benchmarks.import_bench import parse_size
from benchmarks.run_bench import SEED
from benchmarks.transcripts import generate
from streamer.configuration.model import DEFAULT_MAX_UNITS, DEFAULT_OVERLAP_UNITS
from streamer.domain.dnd.npc_rules import NpcRules
from streamer.domain.dnd.prefilter import SEPARATOR
from streamer.domain.dnd.rules import SpellCastRules, SpellRules
from streamer.framework.chunking.chunker import Chunker
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit

MB = 1_000_000
PARTY = {
    "LAURA": "Vex'ahlia",
    "LIAM": "Vax'ildan",
    "TALIESIN": "Percy",
    "MARISHA": "Keyleth",
    "SAM": "Scanlan",
    "TRAVIS": "Grog",
    "ASHLEY": "Pike",
    "ORION": "Tiberius",
}
NPC_NAMES = {"trinket": "Trinket", "kima": "Kima"}


class _Unit(msgspec.Struct):
    unit_id: str
    text: str
    speaker: str | None = None


def chunks(source: Path) -> Iterator[list[ShownUnit]]:
    """The source document's units in the default plan's chunks (``Chunker``)."""
    decode = msgspec.json.Decoder(_Unit).decode
    chunker: Chunker[ShownUnit] = Chunker(DEFAULT_MAX_UNITS, DEFAULT_OVERLAP_UNITS)
    with open(source, "rb") as lines:
        lines.readline()  # the header
        batch: list[ShownUnit] = []
        for line in lines:
            unit = decode(line)
            batch.append(ShownUnit(unit.unit_id, unit.speaker, unit.text))
            if len(batch) == DEFAULT_MAX_UNITS:
                yield from (list(chunk.items) for chunk in chunker.add_many(batch))
                batch = []
        yield from (list(chunk.items) for chunk in chunker.add_many(batch))
        yield from (list(chunk.items) for chunk in chunker.finish())


def spaced(table: dict[int, str], texts: Sequence[str]) -> tuple[str, list[int]]:
    """The block as the spell gate's pass reads it, and where each unit after the first
    starts in it."""
    from streamer.domain.dnd.prefilter import PADDED  # (not in a streamer before 1bff45a)

    block = f" {PADDED.join(texts)} ".translate(table)
    return block, list(accumulate((len(text) + 3 for text in texts), initial=0))[1:-1]


def plain(chunk: Sequence[ShownUnit]) -> list[str]:
    """The texts the pass reads: the units in ASCII without NUL (the others: "")."""
    return [u.text if u.text.isascii() and SEPARATOR not in u.text else "" for u in chunk]


def automaton_units(automaton: Any, table: dict[int, str], texts: Sequence[str]) -> list[int]:
    """The units holding a keyword, by an Aho-Corasick automaton (``pyahocorasick``)."""
    block, starts = spaced(table, texts)
    return sorted({bisect_right(starts, end) for end, _ in automaton.iter(block)})


def hyperscan_units(database: Any, table: dict[int, str], texts: Sequence[str]) -> list[int]:
    """The units holding a keyword, by a Hyperscan database of the keywords (what the
    gate uses since 2 December 2026; the block in bytes)."""
    block, starts = spaced(table, texts)
    ends: list[int] = []

    def found(keyword: int, start: int, end: int, flags: int, context: object) -> None:
        ends.append(end - 1)

    database.scan(block.encode("ascii"), match_event_handler=found)
    return sorted({bisect_right(starts, end) for end in ends})


def regex_units(pattern: re.Pattern[str], table: dict[int, str], texts: Sequence[str]) -> list[int]:
    """The units holding a keyword, by one combined regular expression (a lookahead, so
    that keywords sharing their spaces are all found)."""
    block, starts = spaced(table, texts)
    return sorted({bisect_right(starts, match.start()) for match in pattern.finditer(block)})


class Contender:
    def __init__(self, name: str, call: Callable[[list[ShownUnit]], Any]) -> None:
        self.name = name
        self.call = call
        self.seconds = 0.0
        self.found = 0

    def __call__(self, chunk: list[ShownUnit]) -> Any:
        start = time.process_time()
        result = self.call(chunk)
        self.seconds += time.process_time() - start
        self.found += len(result)
        return result


def one_run(source: Path, first: bool, passes: bool) -> tuple[list[Contender], dict[str, bool]]:
    """One run over the chunks; the first also runs the rules on every unit and the
    combined regex (the checks, and the slow contenders: once is enough); ``passes``:
    time the gate's pass in its two forms at all."""
    spells_context = RulesContext(PARTY)
    npc_context = RulesContext({}, NPC_NAMES)
    spells = Contender("spells", lambda chunk: SpellCastRules()(chunk, spells_context))
    every = Contender(
        "spells, every unit", lambda chunk: SpellCastRules(prefilter=False)(chunk, spells_context)
    )
    npcs = Contender("npcs", lambda chunk: NpcRules()(chunk, npc_context))
    contenders = [spells, *([every] if first else []), npcs]
    automaton = hyperscan_ = regex = None
    if passes:
        # the spell gate's pass over units in ASCII (all but a few of CRD3's), three forms
        spaced_pass = SpellRules.of(spells_context).gate._spaced
        assert spaced_pass is not None
        # (its keywords and table: bytes since 2 December 2026, str before)
        any_pass: Any = spaced_pass
        found: Iterable[str | bytes] = getattr(any_pass, "keywords", None) or any_pass.needs
        keywords = sorted(
            (k.decode("ascii") if isinstance(k, bytes) else k for k in found),
            key=lambda word: (-len(word), word),
        )
        gate_table = any_pass.table
        table = (
            {code: chr(gate_table[code]) for code in range(128)}
            if isinstance(gate_table, bytes)
            else gate_table
        )
        pattern = re.compile(f"(?=(?:{'|'.join(map(re.escape, keywords))}))")
        automaton_ = ahocorasick.Automaton()
        for keyword in keywords:
            automaton_.add_word(keyword, keyword)
        automaton_.make_automaton()
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=[keyword.encode("ascii") for keyword in keywords],
            ids=list(range(len(keywords))),
            elements=len(keywords),
            flags=0,
            literal=True,
        )
        hyperscan_ = Contender(
            "spell gate's pass: Hyperscan",
            lambda chunk: hyperscan_units(database, table, plain(chunk)),
        )
        automaton = Contender(
            "spell gate's pass: Aho-Corasick",
            lambda chunk: automaton_units(automaton_, table, plain(chunk)),
        )
        contenders += [hyperscan_, automaton]
        if first:
            regex = Contender(
                "spell gate's pass: combined regex",
                lambda chunk: regex_units(pattern, table, plain(chunk)),
            )
            contenders.append(regex)
    same_candidates = same_units = True
    for chunk in chunks(source):
        found = spells(chunk)
        if first:
            same_candidates &= every(chunk) == found
        npcs(chunk)
        if automaton is not None and hyperscan_ is not None:
            units = hyperscan_(chunk)
            same_units &= units == automaton(chunk)
            if regex is not None:
                same_units &= units == regex(chunk)
    checks = {}
    if first:
        checks["prefiltered candidates identical to every unit's"] = same_candidates
        if passes:
            checks["same units by every pass"] = same_units
    return contenders, checks


def measure(folder: Path, size: int, repeat: int, passes: bool) -> dict[str, Any]:
    transcript, turns = generate("crd3", folder, size, SEED)
    source = folder / "source.jsonl"
    command = [sys.executable, "-m", "streamer", "import", "crd3", str(transcript)]
    command += ["--output", str(source), "--document-id", "bench", "--quiet"]
    subprocess.run(command, check=True)
    seconds: dict[str, list[float]] = {}
    found: dict[str, int] = {}
    checks: dict[str, bool] = {}
    loads = []
    for run in range(repeat):
        contenders, run_checks = one_run(source, first=run == 0, passes=passes)
        for contender in contenders:
            seconds.setdefault(contender.name, []).append(contender.seconds)
            found[contender.name] = contender.found
        for name, ok in run_checks.items():
            checks[name] = checks.get(name, True) and ok
        loads.append(float(load_average().split()[0]))
    return {
        "transcript_bytes": transcript.stat().st_size,
        "turns": turns,
        "repeat": repeat,
        "load_average": loads,
        "seconds": {name: statistics.median(runs) for name, runs in seconds.items()},
        "seconds_each_run": seconds,
        "found": found,
        "checks": checks,
    }


def table(result: dict[str, Any]) -> str:
    size = result["transcript_bytes"]
    checks = ", ".join(f"{name}: {'yes' if ok else 'NO'}" for name, ok in result["checks"].items())
    lines = [
        f"CRD3 transcript {size / MB:.0f} MB, {result['turns']:,} turns, chunks of "
        f"{DEFAULT_MAX_UNITS} units; medians of {result['repeat']} runs; load average "
        "(1 min) after each: " + ", ".join(f"{load:.1f}" for load in result["load_average"]),
        "",
        "| contender | CPU s | MB/s of transcript | found (candidates or units) | CPU s each run |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, seconds in result["seconds"].items():
        each = " ".join(f"{s:.2f}" for s in result["seconds_each_run"][name])
        rate = size / MB / seconds if seconds else float("inf")
        lines.append(
            f"| {name} | {seconds:.2f} | {rate:.0f} | {result['found'][name]:,} | {each} |"
        )
    lines += ["", f"Checked: {checks}."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rules_bench", description=__doc__)
    parser.add_argument("--size", default="200MB", help="transcript size (default 200MB)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (default 3)")
    parser.add_argument("--data-dir", type=Path, help="keep the transcript here (default: temp)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument(
        "--no-passes",
        action="store_true",
        help="only the rules (for a streamer whose spell gate has no spaced pass: before 1bff45a)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="streamer-rules-bench-") as temporary:
        folder = args.data_dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        result = measure(folder, parse_size(args.size), args.repeat, not args.no_passes)
    return print_result(table(result), result, args.json)


if __name__ == "__main__":
    sys.exit(main())

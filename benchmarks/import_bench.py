"""The import benchmark (``python -m benchmarks.import_bench``, part of ``make bench``):
``streamer import FORMAT`` against reading its own output, for every format.

For each format (text, srt, webvtt, whisperx, crd3) an input of ``--size`` bytes is
generated (seeded, written to disk as it is made, never held in memory) into a temporary
folder (or ``--data-dir``); then, ``--repeat`` times, alternately: the import (``python -m
streamer import FORMAT INPUT --output OUT``) and the read of its output (``python -m
benchmarks.import_bench --read OUT``: ``SourceDocumentReader`` over the file, every batch
iterated and ``reader.identity`` read, so the output is parsed, validated and its digest
verified; nothing else). Each run is its own subprocess, spawned by
``benchmarks/launch.py`` (wall, CPU, peak RSS, as the main harness measures). The read
must find the unit count the generator wrote and the digest the importer declared. The
table (markdown) gives the best wall and CPU time of the runs, the highest peak RSS, and
the ratio import / read of wall and of CPU time, against the target: 1.5x.

The CRD3 input repeats the turns of the four episodes of ``../shared/data/crd3``
(``benchmarks/profiles/crd3.py`` finds them), renumbered; without them, synthetic turns.
Not part of the test suite; on a shared machine compare the CPU ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

TARGET = 1.5
# the cases: each an input shape, imported as its format
FORMATS = ("text", "srt", "webvtt", "whisperx", "whisperx-words", "crd3")
SUFFIXES = {"text": "txt", "srt": "srt", "webvtt": "vtt", "crd3": "json"}
SEED = 20240611
WRITE_BLOCK = 1 << 20


def read_output(path: str) -> int:
    """``--read``: what the benchmark times as "reading the output"."""
    from streamer.framework.source.reader import SourceDocumentReader

    units = 0
    with open(path, "rb") as stream:
        reader = SourceDocumentReader(stream)
        for batch in reader.batches():
            units += len(batch.ids)
        identity = reader.identity
    print(json.dumps({"units": units, "digest": identity.semantic_digest}))
    return 0


# --- the generators: each writes pieces of text and counts the units the import makes ---

_WORD_LIST = (
    "the goblin bridge rope axe you roll initiative arrow spell fire ward knife sharp "
    "halfway across small green creak planks wind howls gorge old reach dragon tavern "
    "gold coin door torch shadow cleric rogue paladin heal strike miss hit saving throw "
    "café naïve Kraghammer Tal'Dorei señor 竜 ✨"
)
_WORDS = tuple(_WORD_LIST.split(" "))
_SPEAKERS = ("MATT", "MARISHA", "TRAVIS", "LAURA", "LIAM", "SAM", "TALIESIN", "ASHLEY")


def _sentence(rng: random.Random, low: int = 3, high: int = 30) -> str:
    """Words, some not ASCII."""
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


class _Writer:
    """Buffered text output that counts its bytes."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.size = 0
        self._parts: list[str] = []
        self._pending = 0

    def write(self, text: str) -> None:
        self._parts.append(text)
        self._pending += len(text)
        if self._pending >= WRITE_BLOCK:
            self.flush()

    def flush(self) -> None:
        data = "".join(self._parts).encode("utf-8")
        self.out.write(data)
        self.size += len(data)
        self._parts, self._pending = [], 0

    def written(self) -> int:
        return self.size + self._pending  # close enough: characters not yet encoded


def _timestamp(ms: int, comma: bool) -> str:
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    seconds, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{',' if comma else '.'}{ms:03d}"


def gen_text(out: _Writer, size: int, rng: random.Random) -> int:
    units = 0
    while out.written() < size:
        roll = rng.random()
        if roll < 0.03:
            out.write("\n")  # a blank line: no unit
            continue
        speaker = f"{rng.choice(_SPEAKERS)}: " if roll < 0.9 else ""
        out.write(f"{speaker}{_sentence(rng)}\n")
        units += 1
    return units


def gen_srt(out: _Writer, size: int, rng: random.Random) -> int:
    units, ms = 0, 0
    while out.written() < size:
        start, ms = ms, ms + rng.randint(500, 6000)
        units += 1
        lines = [_sentence(rng, 2, 12) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.1:
            lines[0] = f"<i>{lines[0]}</i>"
        out.write(
            f"{units}\n{_timestamp(start, True)} --> {_timestamp(ms, True)}\n"
            + "\n".join(lines)
            + "\n\n"
        )
        ms += rng.randint(0, 400)
    return units


def gen_webvtt(out: _Writer, size: int, rng: random.Random) -> int:
    out.write("WEBVTT - generated\n\nNOTE generated by benchmarks/import_bench.py\n\n")
    units, ms = 0, 0
    while out.written() < size:
        start, ms = ms, ms + rng.randint(500, 6000)
        units += 1
        lines = [_sentence(rng, 2, 12) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.7:
            lines[0] = f"<v {rng.choice(_SPEAKERS).title()}>{lines[0]}"
        out.write(
            f"cue-{units}\n{_timestamp(start, False)} --> {_timestamp(ms, False)} align:start\n"
            + "\n".join(lines)
            + "\n\n"
        )
    return units


def gen_whisperx(out: _Writer, size: int, rng: random.Random, words: bool = False) -> int:
    """WhisperX's JSON: segments; with ``words`` (aligned), each with its words, and the
    ``word_segments`` list that WhisperX writes after them (here one word a segment)."""
    out.write('{"segments": [')
    units, ms = 0, 0
    while out.written() < size:
        start, ms = ms, ms + rng.randint(500, 8000)
        text = _sentence(rng)
        speaker = f"SPEAKER_0{rng.randrange(4)}"
        segment = json.dumps(
            {"start": start / 1000, "end": ms / 1000, "text": " " + text, "speaker": speaker},
            ensure_ascii=False,
        )
        if words:
            tokens = text.split(" ")
            step = (ms - start) / 1000 / len(tokens)
            listed = ", ".join(
                json.dumps(
                    {
                        "word": token,
                        "start": round(start / 1000 + i * step, 3),
                        "end": round(start / 1000 + (i + 1) * step, 3),
                        "score": round(rng.random(), 3),
                        "speaker": speaker,
                    },
                    ensure_ascii=False,
                )
                for i, token in enumerate(tokens)
            )
            segment = segment[:-1] + f', "words": [{listed}]}}'
        out.write(("" if units == 0 else ",\n") + segment)
        units += 1
    out.write("]")
    if words:
        out.write(', "word_segments": [')
        for index in range(units):
            word = {"word": rng.choice(_WORDS), "start": index / 2, "end": index / 2 + 0.4}
            out.write(("" if index == 0 else ",\n") + json.dumps(word, ensure_ascii=False))
        out.write("]")
    out.write(', "language": "en"}\n')
    return units


def _crd3_turns(rng: random.Random) -> Iterator[dict[str, Any]]:
    from benchmarks.profiles.crd3 import episodes

    found = episodes()
    if found:
        import orjson

        turns = [turn for path in found for turn in orjson.loads(path.read_bytes())["TURNS"]]
        while True:
            yield from turns
    while True:
        yield {
            "NAMES": [rng.choice(_SPEAKERS)],
            "UTTERANCES": [_sentence(rng, 4, 12) for _ in range(rng.randint(1, 5))],
        }


def gen_crd3(out: _Writer, size: int, rng: random.Random) -> int:
    out.write('{"METADATA": {"Wiki Blurb": [{"content": "generated"}]}, "TURNS": [')
    number = 0
    for turn in _crd3_turns(rng):
        if out.written() >= size:
            break
        item = {"NAMES": turn["NAMES"], "UTTERANCES": turn["UTTERANCES"], "NUMBER": number}
        out.write(("" if number == 0 else ",\n") + json.dumps(item, ensure_ascii=False))
        number += 1
    out.write("]}\n")
    return number  # one unit a turn


GENERATORS: dict[str, Callable[[_Writer, int, random.Random], int]] = {
    "text": gen_text,
    "srt": gen_srt,
    "webvtt": gen_webvtt,
    "whisperx": gen_whisperx,
    "whisperx-words": lambda out, size, rng: gen_whisperx(out, size, rng, words=True),
    "crd3": gen_crd3,
}


def generate(format_name: str, folder: Path, size: int, seed: int) -> tuple[Path, int]:
    """The input of ``format_name``, about ``size`` bytes, and its unit count; an input
    already in ``folder`` for the same size and seed is reused."""
    suffix = SUFFIXES.get(format_name, "json")
    path = folder / f"input-{format_name}-{size}-{seed}.{suffix}"
    counted = path.with_suffix(".units")
    if path.exists() and counted.exists():
        return path, int(counted.read_text())
    with open(path, "wb") as stream:
        out = _Writer(stream)
        units = GENERATORS[format_name](out, size, random.Random(f"{seed}-{format_name}"))
        out.flush()
    counted.write_text(str(units))
    return path, units


def parse_size(text: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}
    upper = text.strip().upper()
    for suffix, factor in sorted(units.items(), key=lambda item: -len(item[0])):
        if upper.endswith(suffix):
            return int(float(upper[: -len(suffix)]) * factor)
    return int(upper)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB", help="input size per format (default 100MB)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, alternated")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--data-dir", type=Path, help="keep the inputs here (default: temp)")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--read", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.read:
        return read_output(args.read)
    formats = [name for name in args.formats.split(",") if name]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        parser.error(f"unknown formats: {', '.join(unknown)}")
    size = parse_size(args.size)
    with tempfile.TemporaryDirectory(prefix="streamer-import-bench-") as temporary:
        folder = args.data_dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        rows = [run_format(name, folder, size, args) for name in formats]
    print_table(rows, args, size)
    return 0 if all(row["ok"] for row in rows) else 1


def run_format(
    format_name: str, folder: Path, size: int, args: argparse.Namespace
) -> dict[str, Any]:
    from benchmarks.measure import Child, measure, warm

    source, expected = generate(format_name, folder, size, args.seed)
    output = folder / f"output-{format_name}.jsonl"
    imported = format_name.split("-")[0]  # whisperx-words is whisperx
    command = [sys.executable, "-m", "streamer", "import", imported, str(source)]
    command += ["--output", str(output), "--document-id", "bench", "--quiet"]
    reading = [sys.executable, "-m", "benchmarks.import_bench", "--read", str(output)]
    answer = folder / f"read-{format_name}.json"
    imports: list[Child] = []
    reads: list[Child] = []
    warm(source)
    for _ in range(args.repeat):
        imports.append(measure(command, timeout=args.timeout))
        warm(output)
        reads.append(measure(reading, stdout=answer, timeout=args.timeout))
    failed = [child for child in imports + reads if child.status != 0]
    row: dict[str, Any] = {"format": format_name, "input": source.stat().st_size, "ok": False}
    if failed:
        row["error"] = failed[0].stderr.strip().splitlines()[-1:] or ["timeout"]
        return row
    with open(output, "rb") as stream:
        declared = json.loads(stream.readline())["semantic_digest"]
    found = json.loads(answer.read_text())
    row.update(
        output=output.stat().st_size,
        units=found["units"],
        expected=expected,
        checked=found["units"] == expected and found["digest"] == declared,
        wall=min(child.wall for child in imports),
        cpu=min(child.cpu for child in imports),
        rss=max(child.peak_rss for child in imports),
        read_wall=min(child.wall for child in reads),
        read_cpu=min(child.cpu for child in reads),
        read_rss=max(child.peak_rss for child in reads),
    )
    row["ratio"] = row["wall"] / row["read_wall"]
    row["cpu_ratio"] = row["cpu"] / row["read_cpu"]
    row["ok"] = row["checked"]
    output.unlink(missing_ok=True)
    answer.unlink(missing_ok=True)
    return row


def print_table(rows: list[dict[str, Any]], args: argparse.Namespace, size: int) -> None:
    from benchmarks.environment import environment

    mib = 1 << 20
    print(
        f"streamer import against reading its output: {size / 1e6:.0f} MB inputs, "
        f"best of {args.repeat} (peak RSS: highest), target {TARGET}x"
    )
    print()
    print(
        "| format | input MB | output MB | units | import wall s | import CPU s "
        "| import peak MiB | read wall s | read CPU s | read peak MiB | ratio wall | ratio CPU "
        "| target met (CPU) |"
    )
    print("| --- " * 13 + "|")
    for row in rows:
        if "wall" not in row:
            print(f"| {row['format']} | {row['input'] / 1e6:.0f} | failed: {row['error']} |")
            continue
        units = f"{row['units']}" + ("" if row["checked"] else f" (expected {row['expected']}!)")
        met = "yes" if row["cpu_ratio"] <= TARGET else "**no**"
        print(
            f"| {row['format']} | {row['input'] / 1e6:.0f} | {row['output'] / 1e6:.0f} | {units} "
            f"| {row['wall']:.2f} | {row['cpu']:.2f} | {row['rss'] / mib:.0f} "
            f"| {row['read_wall']:.2f} | {row['read_cpu']:.2f} | {row['read_rss'] / mib:.0f} "
            f"| {row['ratio']:.2f}x | {row['cpu_ratio']:.2f}x | {met} |"
        )
    print()
    for key, value in environment([]).items():
        if key != "matplotlib":
            print(f"- {key}: {value}")


if __name__ == "__main__":
    raise SystemExit(main())

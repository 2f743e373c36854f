"""Where the time of ``streamer evidence`` goes, stage by stage, without a profiler.

Each line is one full pass over the same (warm) file, in this process, each adding one
stage to the previous: reading, parsing, validating every unit, digesting, streamer's
reader (its generator layers, the JSON tail tap), and the whole projection and write
(``api.evidence`` to ``/dev/null``). The difference between two lines is the cost of the
stage added; cProfile's per-call overhead would distort exactly these small functions.

Usage: ``python -m benchmarks.stages DIR [--form json|jsonl]`` where DIR is a data set of
``benchmarks.generate`` (``--keep`` leaves them in ``benchmarks/data/``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import ijson
import orjson

from benchmarks.generate import Dataset
from streamer import api
from streamer.framework.canonical_json import SemanticDigest
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE, SourceDocumentReader
from streamer.framework.source.unit_rules import validate_unit

READ_BUFFER = 1 << 20


def _lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        stream.readline()
        yield from stream


def _json_items(path: Path) -> Iterator[Any]:
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        yield from ijson.items(stream, "units.item", buf_size=DEFAULT_BUFFER_SIZE)


def stages(dataset: Dataset, form: str) -> list[tuple[str, Callable[[], object]]]:
    path = dataset.source(form)
    loads = orjson.loads

    def parsed() -> Iterator[Any]:
        if form == "jsonl":
            return (loads(line) for line in _lines(path))
        return _json_items(path)

    def read() -> object:
        if form == "jsonl":
            return sum(1 for _ in _lines(path))
        with open(path, "rb", buffering=0) as stream:
            while stream.read(READ_BUFFER):
                pass
        return None

    def parse() -> object:
        return sum(1 for _ in parsed())

    def validate() -> object:
        return sum(1 for unit in parsed() if validate_unit(unit, "x"))

    def digest() -> object:
        semantic = SemanticDigest()
        for unit in parsed():
            semantic.add(validate_unit(unit, "x"))
        return semantic.hexdigest()

    def reader() -> object:
        with open(path, "rb", buffering=READ_BUFFER) as stream:
            source = SourceDocumentReader(stream)
            count = sum(1 for _ in source)
            return count, source.identity

    def evidence() -> object:
        config = api.load_config(dataset.config)
        with open(os.devnull, "wb") as out:
            return api.evidence(config, path, dataset.lanes_dir, output=out)

    return [
        ("read the bytes" + (" (lines)" if form == "jsonl" else ""), read),
        ("+ parse every unit", parse),
        ("+ validate every unit", validate),
        ("+ semantic digest (= floor + validation)", digest),
        ("SourceDocumentReader (reader layers)", reader),
        ("api.evidence (+ lanes, projection, write)", evidence),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stages", description=__doc__)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--form", choices=("json", "jsonl"), default=None)
    args = parser.parse_args(argv)
    dataset = Dataset.load(args.dataset)
    for form in [args.form] if args.form else ["jsonl", "json"]:
        size = dataset.source(form).stat().st_size
        print(f"{form}: {size / 1e6:.0f} MB, {dataset.units} units (CPU seconds)")
        previous = 0.0
        for name, run in stages(dataset, form):
            began = time.process_time()
            run()
            spent = time.process_time() - began
            print(f"  {name:<45} {spent:7.2f} s  ({spent - previous:+.2f})")
            previous = spent
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The floor: one bare pass of the work no implementation of ``streamer evidence`` avoids.

Parse every unit with the parser streamer uses (JSON: ijson's ``items(f, "units.item")``
with the yajl2_c backend, the same buffer sizes; JSON Lines: ``orjson.loads`` per line)
and compute the semantic digest (orjson canonical dumps with ``OPT_SORT_KEYS``, one
``\\n`` after each unit, SHA-256 in batches). No validation, no projection, no output
document: it prints ``{"form", "units", "semantic_digest"}`` so the harness can check that
the pass really read everything.

Usage: ``python -m benchmarks.floor FILE`` (``.json`` or ``.jsonl``; ``--form`` to force).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import ijson
import orjson

READ_BUFFER = 1 << 20  # as streamer.api opens a source file
IJSON_BUFFER = 1 << 16  # as streamer.framework.source_reader.DEFAULT_BUFFER_SIZE
BATCH = 2048


def json_units(path: str) -> Iterator[dict[str, Any]]:
    backend = ijson.get_backend("yajl2_c")
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        yield from backend.items(stream, "units.item", buf_size=IJSON_BUFFER)


def jsonl_units(path: str) -> Iterator[dict[str, Any]]:
    loads = orjson.loads
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        stream.readline()  # the header
        for line in stream:
            yield loads(line)


def digest(units: Iterator[dict[str, Any]]) -> tuple[int, str]:
    """The semantic digest: the derived self-reference is not covered, so it is dropped."""
    dumps = orjson.dumps
    sort = orjson.OPT_SORT_KEYS
    sha = hashlib.sha256()
    batch: list[bytes] = []
    count = 0
    for unit in units:
        unit.pop("source_ref", None)
        batch.append(dumps(unit, option=sort))
        if len(batch) == BATCH:
            batch.append(b"")
            sha.update(b"\n".join(batch))
            count += BATCH
            batch = []
    count += len(batch)
    if batch:
        batch.append(b"")
        sha.update(b"\n".join(batch))
    return count, "sha256:" + sha.hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__)
    parser.add_argument("source")
    parser.add_argument("--form", choices=("json", "jsonl"))
    args = parser.parse_args(argv)
    form = args.form or ("jsonl" if args.source.endswith(".jsonl") else "json")
    units = json_units(args.source) if form == "json" else jsonl_units(args.source)
    count, semantic_digest = digest(units)
    report = {"form": form, "units": count, "semantic_digest": semantic_digest}
    sys.stdout.write(orjson.dumps(report).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

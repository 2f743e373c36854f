"""The floor: one bare pass of the work no implementation of ``streamer evidence`` avoids.

Parse every unit with the parser streamer uses and compute the semantic digest, the
cheapest way that parser allows:

- JSON: ijson's ``items(f, "units.item")`` with the yajl2_c backend and streamer's buffer
  size; digest from orjson canonical dumps (``OPT_SORT_KEYS``), one ``\\n`` after each unit,
  SHA-256 in batches;
- JSON Lines: msgspec's ``decode_lines`` of 1 MB blocks into streamer's ``SourceUnit``
  struct (msgspec has no faster way to parse a unit), digest from the canonical encoding of
  each block's list, split into lines, SHA-256. No validation, no projection, no output
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
import msgspec
import orjson

from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.framework.source.units import SourceUnit

READ_BUFFER = 1 << 20
IJSON_BUFFER = DEFAULT_BUFFER_SIZE  # as streamer reads the JSON form
BATCH = 2048


def json_units(path: str) -> Iterator[dict[str, Any]]:
    backend = ijson.get_backend("yajl2_c")
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        yield from backend.items(stream, "units.item", buf_size=IJSON_BUFFER)


def jsonl_floor(path: str) -> tuple[int, str]:
    """Blocks of whole lines, decoded by msgspec, digested a block at a time."""
    decoder = msgspec.json.Decoder(SourceUnit)
    encoder = msgspec.json.Encoder(order="sorted")
    sha = hashlib.sha256()
    count = 0
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        stream.readline()  # the header
        while block := stream.read(DEFAULT_BUFFER_SIZE):
            if not block.endswith(b"\n"):
                block += stream.readline()
            units = decoder.decode_lines(block)
            count += len(units)
            listed = encoder.encode(units)
            if b'"source_ref":{' in listed:  # the digest does not cover self-references
                for unit in units:
                    unit.source_ref = msgspec.UNSET
                listed = encoder.encode(units)
            listed = listed.replace(b'},{"kind":', b'}\n{"kind":')
            sha.update(memoryview(listed)[1:-1])
            sha.update(b"\n")
    return count, "sha256:" + sha.hexdigest()


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
    if form == "json":
        count, semantic_digest = digest(json_units(args.source))
    else:
        count, semantic_digest = jsonl_floor(args.source)
    report = {"form": form, "units": count, "semantic_digest": semantic_digest}
    sys.stdout.write(orjson.dumps(report).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The floor: one bare pass of the work no implementation of ``streamer evidence`` avoids.

Parse every unit with the parser streamer uses and compute the semantic digest, the
cheapest way that parser allows. The harness runs every variant below in its own
subprocess and keeps the fastest (all are in ``results.json``):

- JSON: ijson's ``items(f, "units.item")`` with the yajl2_c backend; the variants are the
  read path (``raw``: an unbuffered ``FileIO``; ``buffered``: a 1 MiB ``BufferedReader``)
  times ijson's buffer (16 KiB, ijson's default 64 KiB, streamer's 1 MiB: reads of 1 MiB
  cost system time); digest from orjson canonical dumps (``OPT_SORT_KEYS``), one ``\\n``
  after each unit, SHA-256 in batches;
- JSON Lines: msgspec's ``decode_lines`` of 1 MB blocks into streamer's ``SourceUnit``
  struct (msgspec has no faster way to parse a unit), digest from the canonical encoding
  of each block's list, split into lines, SHA-256.

No validation, no projection, no output document: it prints ``{"form", "units",
"semantic_digest"}`` so the check can tell that the pass really read everything.

Usage: ``python -m benchmarks.contenders.floor FILE [--form F] [--read raw|buffered]
[--ijson-buffer BYTES]``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import ijson
import msgspec
import orjson

from benchmarks.contenders import PYTHON, Contender, Invocation, register, version_of
from streamer.framework.source.reader import DEFAULT_BUFFER_SIZE
from streamer.framework.source.units import SourceUnit

if TYPE_CHECKING:
    from benchmarks.cases import Case

READ_BUFFER = 1 << 20
BATCH = 2048
KiB = 1 << 10
# (read path, ijson buffer): the first is the one kept by --floor-variants first.
JSON_VARIANTS = (
    ("raw", 64 * KiB),
    ("raw", 16 * KiB),
    ("raw", DEFAULT_BUFFER_SIZE),
    ("buffered", 16 * KiB),
    ("buffered", 64 * KiB),
    ("buffered", DEFAULT_BUFFER_SIZE),
)


class Floor(Contender):
    name = "floor"
    summary = "the cheapest bare parse + semantic digest (fastest of its variants)"

    def versions(self) -> dict[str, str]:
        return {"ijson": f"{version_of('ijson')} (backend {ijson.backend})"}

    def invocations(self, case: Case) -> list[Invocation]:
        base = [PYTHON, "-m", "benchmarks.contenders.floor", "--form", case.form]
        output = case.out / f"floor.{case.form}.json"
        if case.form == "jsonl":
            return [Invocation([*base, str(case.source)], stdout=output, output=output)]
        variants = JSON_VARIANTS[:1] if case.settings.floor_variants == "first" else JSON_VARIANTS
        runs = []
        for read, buffer in variants:
            out = case.out / f"floor.{case.form}.{read}-{buffer}.json"
            args = ["--read", read, "--ijson-buffer", str(buffer), str(case.source)]
            runs.append(
                Invocation([*base, *args], stdout=out, output=out, variant=_name(read, buffer))
            )
        return runs

    def check(self, case: Case, invocation: Invocation) -> str:
        assert invocation.output is not None
        report = orjson.loads(invocation.output.read_bytes())
        good = (report["units"], report["semantic_digest"]) == (
            case.dataset.units,
            case.dataset.digest,
        )
        return "digest and count right" if good else "DIGEST OR COUNT WRONG"


def _name(read: str, buffer: int) -> str:
    return f"{read}, ijson {buffer // KiB} KiB"


register(Floor())


# -- the pass itself (in the child) ---------------------------------------------------


def json_units(path: str, read: str, buffer: int) -> Iterator[dict[str, Any]]:
    backend = ijson.get_backend("yajl2_c")
    with open(path, "rb", buffering=0 if read == "raw" else READ_BUFFER) as stream:
        yield from backend.items(stream, "units.item", buf_size=buffer)


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
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.contenders.floor", description=__doc__
    )
    parser.add_argument("source")
    parser.add_argument("--form", choices=("json", "jsonl"))
    parser.add_argument("--read", choices=("raw", "buffered"), default="raw")
    parser.add_argument("--ijson-buffer", type=int, default=64 * KiB)
    args = parser.parse_args(argv)
    form = args.form or ("jsonl" if args.source.endswith(".jsonl") else "json")
    if form == "json":
        count, semantic_digest = digest(json_units(args.source, args.read, args.ijson_buffer))
    else:
        count, semantic_digest = jsonl_floor(args.source)
    report = {"form": form, "units": count, "semantic_digest": semantic_digest}
    sys.stdout.write(orjson.dumps(report).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The floor: one bare pass of the work no implementation of ``streamer evidence`` avoids.

Parse every unit with the libraries streamer uses and compute the semantic digest, the
cheapest way those libraries allow, in bounded memory. The harness runs every variant below
in its own subprocess and keeps the fastest right one (all are in ``results.json`` and in
the "Floor variants" table of ``RESULTS.md``). The first variant of each form is the one
found fastest so far (``--floor-variants first`` runs only it: the 3 GB runs).

JSON Lines (``lines``): msgspec's ``decode_lines`` of blocks of whole lines into streamer's
``SourceUnit`` struct (msgspec parses only into a type, so the type checks come with the
parse), digest from the canonical encoding of each block's list + SHA-256. Variants:

- the block size: 64 KiB, 256 KiB, 1 MiB (streamer's), 4 MiB: fewer, larger blocks cost
  fewer Python-level steps, smaller ones stay in the CPU's caches (at 100 MB, on every
  profile, 256 KiB was the fastest: 20-25% under 1 MiB on the synthetic and CRD3 profiles);
- the read path: ``buffered`` (``read(block)`` on a buffered file, the last line completed
  with ``readline``: two copies of each byte) or ``raw`` (``readinto`` on an unbuffered file
  into one reused ``bytearray``, the incomplete last line moved to its front: one copy).

JSON (one document): the items of ``units`` decoded by msgspec a run of complete items at a
time (``msgspec.json.Decoder(list[SourceUnit])``), digest as for JSON Lines. That is what
streamer's reader does since it cuts the document with ``NestingScan``; an ijson pass (the
earlier floor) is two to three times slower, so it is no floor any more. Variants:

- ``cut``: the cheapest correct cut the libraries allow: a run ends at the last ``}`` of the
  buffer followed by ``,`` and ``{`` (white space allowed), found with ``rfind``. A cut that
  falls inside a string leaves the run's last string open, and one inside an item leaves
  the item open: msgspec then refuses the run and the cut moves to the previous candidate,
  so a wrong cut can cost time but never a wrong answer. Raw ``readinto`` into a reused
  ``bytearray`` (the ``,`` after the cut overwritten by the ``]`` that closes the run, so no
  run is copied) at 64 KiB, 256 KiB (the fastest at 100 MB), 1 MiB, 4 MiB, or buffered
  reads of 256 KiB;
- ``nesting``: streamer's own cut (``NestingScan`` + ``bracket_position``, exact
  whatever the text holds), 1 MiB buffered reads: how much the exact scan costs (at
  100 MB: 1.6 s against the ``cut``'s 0.5 s on CRD3, 0.9 s against 0.5 s on short ASCII);
- ``ijson``: ijson's ``items(f, "units.item")``, yajl2_c backend, orjson
  ``OPT_SORT_KEYS`` dumps + SHA-256: the floor before streamer's reader decoded with msgspec,
  kept for comparison (raw reads with ijson's default 64 KiB buffer, the fastest ijson
  variant of the last full run on two profiles of three).

No validation beyond the parse, no projection, no output document: it prints ``{"form",
"units", "semantic_digest"}`` so the check can tell that the pass really read everything.

Usage: ``python -m benchmarks.contenders.floor FILE [--form F] [--method M] [--read
raw|buffered] [--block BYTES]``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ijson
import msgspec
import orjson

from benchmarks.contenders import PYTHON, Contender, Invocation, register, version_of
from streamer.framework.json.byte_scan import NestingScan, bracket_position
from streamer.framework.source.source_unit import SourceUnit

if TYPE_CHECKING:
    from benchmarks.cases import Case

KiB = 1 << 10
MiB = 1 << 20
READ_BUFFER = MiB
BATCH = 2048


@dataclass(frozen=True)
class Variant:
    method: str  # lines (JSON Lines); cut, nesting, ijson (JSON)
    read: str  # raw (readinto, or an unbuffered file for ijson) or buffered
    block: int  # bytes a read (ijson: its buffer)

    @property
    def name(self) -> str:
        size = f"{self.block // MiB} MiB" if self.block >= MiB else f"{self.block // KiB} KiB"
        return f"{self.method}, {self.read}, {size}"

    def args(self) -> list[str]:
        return ["--method", self.method, "--read", self.read, "--block", str(self.block)]


# The first of each form is the fastest found so far (run alone by --floor-variants first).
VARIANTS = {
    "jsonl": (
        Variant("lines", "raw", 256 * KiB),
        Variant("lines", "raw", 128 * KiB),
        Variant("lines", "raw", 64 * KiB),
        Variant("lines", "raw", 1 * MiB),
        Variant("lines", "raw", 4 * MiB),
        Variant("lines", "buffered", 256 * KiB),
        Variant("lines", "buffered", 1 * MiB),
    ),
    "json": (
        Variant("cut", "raw", 256 * KiB),
        Variant("cut", "raw", 128 * KiB),
        Variant("cut", "raw", 64 * KiB),
        Variant("cut", "raw", 1 * MiB),
        Variant("cut", "raw", 4 * MiB),
        Variant("cut", "buffered", 256 * KiB),
        Variant("nesting", "buffered", 1 * MiB),
        Variant("ijson", "raw", 64 * KiB),
    ),
}


class Floor(Contender):
    name = "floor"
    summary = "the cheapest bare parse + semantic digest (fastest of its variants)"

    def versions(self) -> dict[str, str]:
        return {"ijson": f"{version_of('ijson')} (backend {ijson.backend})"}

    def invocations(self, case: Case) -> list[Invocation]:
        base = [PYTHON, "-m", "benchmarks.contenders.floor", "--form", case.form]
        variants = VARIANTS[case.form]
        settings = case.settings
        largest = settings.floor_variants_max
        if settings.floor_variants == "first" or (
            largest is not None and case.dataset.target_bytes > largest
        ):
            variants = variants[:1]
        runs = []
        for variant in variants:
            out = case.out / f"floor.{case.form}.{variant.method}-{variant.read}-{variant.block}"
            argv = [*base, *variant.args(), str(case.source)]
            runs.append(Invocation(argv, stdout=out, output=out, variant=variant.name))
        return runs

    def check(self, case: Case, invocation: Invocation) -> str:
        assert invocation.output is not None
        report = orjson.loads(invocation.output.read_bytes())
        good = (report["units"], report["semantic_digest"]) == (
            case.dataset.units,
            case.dataset.digest,
        )
        return "digest and count right" if good else "DIGEST OR COUNT WRONG"


register(Floor())


# -- the pass itself (in the child) ---------------------------------------------------


class _Digest:
    """The semantic digest of ``SourceUnit`` lists: their canonical encoding, one unit a
    line (``encode_lines``: no pass to split a list), the derived self-reference dropped
    first (the digest does not cover it)."""

    def __init__(self) -> None:
        self.encoder = msgspec.json.Encoder(order="sorted")
        self.sha = hashlib.sha256()
        self.count = 0

    def add(self, units: list[SourceUnit]) -> None:
        if not units:
            return
        self.count += len(units)
        lines = self.encoder.encode_lines(units)
        if b'"source_ref":{' in lines:
            for unit in units:
                unit.source_ref = msgspec.UNSET
            lines = self.encoder.encode_lines(units)
        self.sha.update(lines)

    def result(self) -> tuple[int, str]:
        return self.count, "sha256:" + self.sha.hexdigest()


def jsonl_floor(path: str, read: str = "raw", block: int = MiB) -> tuple[int, str]:
    """Blocks of whole lines, decoded by msgspec, digested a block at a time."""
    decoder = msgspec.json.Decoder(SourceUnit)
    digest = _Digest()
    if read == "buffered":
        with open(path, "rb", buffering=READ_BUFFER) as stream:
            stream.readline()  # the header
            while data := stream.read(block):
                if not data.endswith(b"\n"):
                    data += stream.readline()
                digest.add(decoder.decode_lines(data))
        return digest.result()
    buffer = bytearray(block)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as stream:
        kept = 0  # bytes of an incomplete line at the front of the buffer
        header = True
        while True:
            if kept == len(buffer):  # a line longer than the buffer
                view.release()
                buffer.extend(bytes(len(buffer)))
                view = memoryview(buffer)
            got = stream.readinto(view[kept:])
            end = kept + (got or 0)
            if not got:
                if end:
                    digest.add(decoder.decode_lines(view[:end]))
                return digest.result()
            last = buffer.rfind(b"\n", 0, end) + 1
            start = 0
            if header and last:
                start = buffer.find(b"\n", 0, end) + 1
                header = False
            if last > start:
                digest.add(decoder.decode_lines(view[start:last]))
            kept = end - last if last else end
            if last:
                buffer[:kept] = view[last:end]


_SEPARATOR = re.compile(rb"\s*,\s*\{")
_UNITS = re.compile(rb'"units"\s*:\s*\[')
_OPEN, _CLOSE, _COMMA = ord("["), ord("]"), ord(",")


def _units_start(head: bytes | bytearray) -> int | None:
    """The index just after the ``[`` of ``units`` (``None``: not in ``head`` yet)."""
    found = _UNITS.search(head)
    return None if found is None else found.end()


def json_cut_floor(path: str, read: str = "raw", block: int = MiB) -> tuple[int, str]:
    """Runs of complete items cut at a ``}`` followed by ``, {`` (msgspec refuses a run
    cut inside a string or an item: then the previous candidate is tried)."""
    decoder = msgspec.json.Decoder(list[SourceUnit])
    digest = _Digest()
    buffer = bytearray(block + 1)
    buffer[0] = _OPEN
    view = memoryview(buffer)
    kept = 1  # buffer[0] is the "[" that opens every run
    first = True
    opened: io.RawIOBase | io.BufferedIOBase
    if read == "raw":
        opened = io.FileIO(path, "rb")
    else:
        opened = io.BufferedReader(io.FileIO(path, "rb"), READ_BUFFER)
    with opened as stream:
        readinto = stream.readinto
        while True:
            if kept == len(buffer):  # an item longer than the buffer
                view.release()
                buffer.extend(bytes(len(buffer)))
                view = memoryview(buffer)
            got = readinto(view[kept:])
            end = kept + (got or 0)
            if not got:
                break
            if first:
                start = _units_start(buffer[1:end])
                if start is None:  # the header is longer than a block
                    kept = end
                    continue
                end -= start
                buffer[1:end] = view[start + 1 : start + end]
                first = False
            cut = end
            while (cut := buffer.rfind(b"}", 1, cut)) > 0:
                separator = _SEPARATOR.match(buffer, cut + 1)
                if separator is None:
                    continue
                comma = buffer.index(b",", cut + 1)
                buffer[comma] = _CLOSE  # the run is decoded in place: "[" items "]"
                try:
                    units = decoder.decode(view[: comma + 1])
                except msgspec.DecodeError:  # the cut was inside a string or an item
                    buffer[comma] = _COMMA
                    continue
                digest.add(units)
                rest = separator.end() - 1  # the "{" of the next item
                kept = 1 + end - rest
                buffer[1:kept] = view[rest:end]
                break
            else:
                kept = end
    # the last run: "... }" then "]" (and the document's "}")
    tail = bytes(view[:end]).rstrip()
    if not tail.endswith(b"}"):
        raise ValueError("the document does not end with }")
    digest.add(decoder.decode(tail[:-1]))
    return digest.result()


def json_nesting_floor(path: str, block: int = MiB) -> tuple[int, str]:
    """Streamer's cut: ``NestingScan`` follows the depth (strings and escapes exact) and
    ``bracket_position`` finds the last item's closing bracket; the run between is
    decoded by msgspec."""
    decoder = msgspec.json.Decoder(list[SourceUnit])
    digest = _Digest()
    with open(path, "rb", buffering=READ_BUFFER) as stream:
        head = b""
        while (start := _units_start(head)) is None:
            more = stream.read(block)
            if not more:
                raise ValueError("no units array")
            head += more
        scan = NestingScan(depth=2)
        pending: list[bytes] = []
        chunk = head[start:]
        while chunk or (chunk := stream.read(block)):
            neutral, profile = scan.feed(chunk)
            ends = [index for index, depth in enumerate(profile) if depth == 2 and index]
            if 1 in profile[1:]:  # units ends here: the rest is the last run
                close = len(profile) - 1 - profile.index(1, 1) + 1
                position = bracket_position(neutral, scan.in_string, close)
                run = b"".join((*pending, chunk[:position]))
                digest.add(decoder.decode(b"[" + run.lstrip(b" \t\r\n,") + b"]"))
                return digest.result()
            if ends:
                position = bracket_position(neutral, scan.in_string, len(profile) - ends[-1])
                run = b"".join((*pending, chunk[: position + 1]))
                digest.add(decoder.decode(b"[" + run.lstrip(b" \t\r\n,") + b"]"))
                pending = [chunk[position + 1 :]]
            else:
                pending.append(chunk)
            chunk = b""
    raise ValueError("the input ends inside units")


def json_units(path: str, read: str, buffer: int) -> Iterator[dict[str, Any]]:
    backend = ijson.get_backend("yajl2_c")
    with open(path, "rb", buffering=0 if read == "raw" else READ_BUFFER) as stream:
        yield from backend.items(stream, "units.item", buf_size=buffer)


def ijson_digest(units: Iterator[dict[str, Any]]) -> tuple[int, str]:
    """The semantic digest from orjson canonical dumps (``OPT_SORT_KEYS``)."""
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


def run_variant(path: str, form: str, variant: Variant) -> tuple[int, str]:
    if form == "jsonl":
        return jsonl_floor(path, variant.read, variant.block)
    if variant.method == "cut":
        return json_cut_floor(path, variant.read, variant.block)
    if variant.method == "nesting":
        return json_nesting_floor(path, variant.block)
    return ijson_digest(json_units(path, variant.read, variant.block))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.contenders.floor", description=__doc__
    )
    parser.add_argument("source")
    parser.add_argument("--form", choices=("json", "jsonl"))
    parser.add_argument("--method", choices=("lines", "cut", "nesting", "ijson"))
    parser.add_argument("--read", choices=("raw", "buffered"))
    parser.add_argument("--block", type=int, help="bytes a read (ijson: its buffer)")
    args = parser.parse_args(argv)
    form = args.form or ("jsonl" if args.source.endswith(".jsonl") else "json")
    first = VARIANTS[form][0]
    variant = Variant(
        args.method or first.method, args.read or first.read, args.block or first.block
    )
    if (form == "jsonl") != (variant.method == "lines"):
        parser.error(f"--method {variant.method} does not read the {form} form")
    count, semantic_digest = run_variant(args.source, form, variant)
    report = {"form": form, "units": count, "semantic_digest": semantic_digest}
    sys.stdout.write(orjson.dumps(report).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reading a candidates file, ``<candidates-dir>/<lane_id>.jsonl``: the header, then one
candidate a line (``design/contract.md``, "Raw candidates").

The header must be a JSON object with exactly ``lane_id`` (this lane), ``artifact_kind``
(the lane's configured kind), ``source`` (``document_id`` and ``semantic_digest``, checked
against the source document once it has been read) and ``extractor`` (an object of
strings: provenance, copied into nothing), or, for a lane with several engines,
``extractors`` (two or more such objects, each naming a distinct ``engine``). A missing or
wrong header fails the run: the file is not this lane's. A candidate line that is not
``{"chunk_id": ..., "record": ...}`` (with ``extractors``: ``{"chunk_id": ..., "engine":
..., "record": ...}``, ``engine`` one the header names) is rejected (``invalid_json`` or
``invalid_candidate``), and reading goes on. The file is
read line by line; only the parsed candidates are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from streamer.framework.errors.safe_text import quoted
from streamer.framework.errors.types import InputError
from streamer.framework.kinds.lane_outputs import is_document_source
from streamer.framework.kinds.lane_schema import DIGEST_PATTERN
from streamer.normalization.rejections import Reason, Rejection

_HEADER = ("lane_id", "artifact_kind", "source", "extractor")
_SEVERAL = "extractors"  # instead of "extractor": a lane with several engines
_CANDIDATE = frozenset({"chunk_id", "record"})
_TAGGED = frozenset({"chunk_id", "engine", "record"})
_DIGEST = re.compile(DIGEST_PATTERN.removesuffix("$") + r"\Z")


@dataclass(frozen=True)
class CandidatesHeader:
    lane_id: str
    artifact_kind: str
    document_id: str
    semantic_digest: str
    engines: tuple[str, ...] = ()  # a lane's several engines (its header's extractors)


@dataclass(frozen=True)
class RawCandidate:
    """One well-formed candidate line: its line number, chunk ID and (unchecked) record."""

    line: int
    chunk_id: str
    record: Any
    engine: str | None = None  # which of the lane's several engines found it


@dataclass
class CandidatesFile:
    name: str
    header: CandidatesHeader
    candidates: list[RawCandidate]
    rejections: list[Rejection]

    @property
    def read(self) -> int:
        return len(self.candidates) + len(self.rejections)


def candidates_path(candidates_dir: Path, lane_id: str) -> Path:
    return candidates_dir / f"{lane_id}.jsonl"


def read_candidates_file(path: Path, lane_id: str, kind_name: str) -> CandidatesFile:
    try:
        with open(path, "rb") as stream:
            return read_candidates(stream, path.name, lane_id, kind_name)
    except OSError as error:
        raise InputError(f"candidates {path.name} cannot be read ({error.strerror})") from None


def read_candidates(stream: BinaryIO, name: str, lane_id: str, kind_name: str) -> CandidatesFile:
    lines = _lines(stream)
    first = next(lines, None)
    if first is None:
        raise InputError(
            f"candidates {name} is empty", hint="its first line is the header naming the lane"
        )
    header = _header(first, f"candidates {name} line 1", lane_id, kind_name)
    candidates: list[RawCandidate] = []
    rejections: list[Rejection] = []
    for number, line in enumerate(lines, start=2):
        parsed = _candidate(line, number, lane_id, header.engines)
        if isinstance(parsed, Rejection):
            rejections.append(parsed)
        else:
            candidates.append(parsed)
    return CandidatesFile(name, header, candidates, rejections)


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """The lines of ``stream`` without their line ends; a last line end ends the file."""
    while True:
        line = stream.readline()
        if not line:
            return
        yield line.removesuffix(b"\n").removesuffix(b"\r")


def _header(line: bytes, where: str, lane_id: str, kind_name: str) -> CandidatesHeader:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise InputError(f"{where}: the header is not valid JSON") from None
    if type(data) is not dict:
        raise InputError(f"{where}: the header must be an object")
    several = _SEVERAL in data
    members = _HEADER if not several else (*_HEADER[:-1], _SEVERAL)
    for member in data:
        if member not in members:
            raise InputError(f"{where}: unknown member $.{quoted(member)} in the header")
    for member in members:
        if member not in data:
            raise InputError(f"{where}: $.{member} is required")
    if data["lane_id"] != lane_id:
        raise InputError(f"{where}: $.lane_id does not name lane {lane_id}")
    if data["artifact_kind"] != kind_name:
        raise InputError(f"{where}: $.artifact_kind is not the lane's kind {kind_name}")
    source = data["source"]
    if not is_document_source(source):
        raise InputError(
            f"{where}: $.source must be an object with document_id and semantic_digest"
        )
    if not _DIGEST.match(source["semantic_digest"]):
        raise InputError(f"{where}: $.source.semantic_digest must be sha256: and 64 hex digits")
    engines = _engines(data[_SEVERAL], where) if several else ()
    if not several and not _extractor(data["extractor"]):
        raise InputError(f"{where}: $.extractor must be an object of strings")
    return CandidatesHeader(
        lane_id, kind_name, source["document_id"], source["semantic_digest"], engines
    )


def _extractor(value: Any) -> bool:
    return type(value) is dict and all(type(item) is str for item in value.values())


def _engines(value: Any, where: str) -> tuple[str, ...]:
    """The engines of a header's ``extractors``: two or more objects of strings, each
    naming a distinct ``engine``."""
    if type(value) is not list or len(value) < 2:
        raise InputError(f"{where}: $.extractors must be a list of two or more extractors")
    engines: list[str] = []
    for index, extractor in enumerate(value):
        if not _extractor(extractor) or extractor.get("engine") in (None, *engines):
            raise InputError(
                f"{where}: $.extractors[{index}] must be an object of strings naming an "
                "engine no other extractor names"
            )
        engines.append(extractor["engine"])
    return tuple(engines)


def _candidate(
    line: bytes, number: int, lane_id: str, engines: tuple[str, ...]
) -> RawCandidate | Rejection:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return Rejection(lane_id, number, None, Reason.INVALID_JSON.value, "$")
    if type(data) is not dict:
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, "$")
    expected = _TAGGED if engines else _CANDIDATE
    if data.keys() != expected:
        unknown = sorted(set(data) - expected)
        path = "$" if unknown else f"$.{sorted(expected - set(data))[0]}"
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, path)
    chunk_id = data["chunk_id"]
    if type(chunk_id) is not str or not chunk_id:
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, "$.chunk_id")
    engine = data.get("engine")
    if engines and engine not in engines:
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, "$.engine")
    return RawCandidate(number, chunk_id, data["record"], engine)

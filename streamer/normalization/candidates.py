"""Reading a candidates file, ``<candidates-dir>/<lane_id>.jsonl``: the header, then one
candidate a line (``design/contract.md``, "Raw candidates").

The header must be a JSON object with exactly ``lane_id`` (this lane), ``artifact_kind``
(the lane's configured kind), ``source`` (``document_id`` and ``semantic_digest``, checked
against the source document once it has been read) and ``extractor`` (an object of
strings: provenance, copied into nothing). A missing or wrong header fails the run: the
file is not this lane's. A candidate line that is not ``{"chunk_id": ..., "record": ...}``
is rejected (``invalid_json`` or ``invalid_candidate``), and reading goes on. The file is
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
_CANDIDATE = frozenset({"chunk_id", "record"})
_DIGEST = re.compile(DIGEST_PATTERN.removesuffix("$") + r"\Z")


@dataclass(frozen=True)
class CandidatesHeader:
    lane_id: str
    artifact_kind: str
    document_id: str
    semantic_digest: str


@dataclass(frozen=True)
class RawCandidate:
    """One well-formed candidate line: its line number, chunk ID and (unchecked) record."""

    line: int
    chunk_id: str
    record: Any


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
        parsed = _candidate(line, number, lane_id)
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
    for member in data:
        if member not in _HEADER:
            raise InputError(f"{where}: unknown member $.{quoted(member)} in the header")
    for member in _HEADER:
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
    extractor = data["extractor"]
    if type(extractor) is not dict or not all(type(value) is str for value in extractor.values()):
        raise InputError(f"{where}: $.extractor must be an object of strings")
    return CandidatesHeader(lane_id, kind_name, source["document_id"], source["semantic_digest"])


def _candidate(line: bytes, number: int, lane_id: str) -> RawCandidate | Rejection:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return Rejection(lane_id, number, None, Reason.INVALID_JSON.value, "$")
    if type(data) is not dict:
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, "$")
    if data.keys() != _CANDIDATE:
        unknown = sorted(set(data) - _CANDIDATE)
        path = "$" if unknown else f"$.{sorted(_CANDIDATE - set(data))[0]}"
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, path)
    chunk_id = data["chunk_id"]
    if type(chunk_id) is not str or not chunk_id:
        return Rejection(lane_id, number, None, Reason.INVALID_CANDIDATE.value, "$.chunk_id")
    return RawCandidate(number, chunk_id, data["record"])

"""Finding a transcript's import format from its name and, for JSON, its shape.

Each format declares what recognizes it (``TranscriptFormat``: its ``suffixes``; a JSON
format its ``json_member``, the top-level member holding its items; a text format its
``sniff`` of a file's first bytes); ``detect_format`` asks every installed format. The
name decides for ``.vtt``, ``.srt`` and ``.txt``; a ``.json`` file (or a file with
another name) is recognized by its content, read no further than ``SNIFF_BYTES``:

- ``WEBVTT`` on the first line: ``webvtt``; a cue number then SubRip timings: ``srt``;
- a JSON object with ``TURNS``: ``crd3``; with ``segments``: ``whisperx``; with both, or
  a file nothing recognizes: an error listing the candidates (``--format`` decides);
- a JSON list of speaker turns without text (what WhisperX's diarization writes beside the
  transcript) is named as such in its error.

Errors never quote the file's content: they name the file as the user gave it.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import ijson

from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError, SourceError
from streamer.importers.formats import FORMATS, TranscriptFormat

# Detection reads at most this much of a file: a member recognized after it is not seen.
SNIFF_BYTES = 1 << 20
_DIARIZATION_MEMBERS = frozenset({"speaker", "start", "end"})


def _formats() -> list[TranscriptFormat]:
    return [FORMATS.get(name) for name in FORMATS.names()]


@dataclass(frozen=True)
class _JsonShape:
    top: str  # "object", "list" or "other"
    members: frozenset[str]  # the top-level object's members, or the first item's
    first_item_object: bool = False


def _json_shape(head: bytes) -> _JsonShape | None:
    """The shape of the JSON at the start of ``head`` (which may be cut), or ``None`` when
    it does not start as JSON."""
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    if stripped[:1] not in (b"{", b"["):
        return None
    top = "object" if stripped[:1] == b"{" else "list"
    members: set[str] = set()
    first_item_object = False
    try:
        for prefix, event, value in ijson.parse(io.BytesIO(stripped)):
            if top == "object" and prefix == "" and event == "map_key":
                members.add(value)
            elif top == "list":
                if prefix == "item" and event == "start_map":
                    first_item_object = True
                elif prefix == "item" and event == "map_key":
                    members.add(value)
                elif (prefix == "item" and event in ("end_map", "end_array")) or (
                    prefix == "" and event == "end_array"
                ):
                    break
    except (ijson.JSONError, UnicodeDecodeError, ArithmeticError):
        pass  # a cut or malformed file: what was seen decides
    return _JsonShape(top, frozenset(members), first_item_object)


def _read_head(path: Path, given: str) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(SNIFF_BYTES)
    except OSError as error:
        raise ConfigurationError(
            f"transcript {given} cannot be read ({error.strerror})", hint="check TRANSCRIPT"
        ) from None


def format_names() -> tuple[str, ...]:
    return tuple(FORMATS.names())


def _ambiguous(given: str, candidates: list[str], why: str) -> ConfigurationError:
    shown = candidates or list(format_names())
    return ConfigurationError(
        f"cannot tell the format of {given}: {why}",
        hint=f"give --format, one of: {', '.join(shown)}",
    )


def detect_format(transcript: str | os.PathLike[str]) -> str:
    """The import format of the file ``transcript``; a ``ConfigurationError`` (exit 2)
    lists the candidates when the file could be several, a ``SourceError`` (exit 3) names
    a JSON file that is no transcript (a diarization result)."""
    path = Path(transcript)
    given = shown_path(transcript)
    suffix = path.suffix.lower()
    formats = _formats()
    by_name = [f.name for f in formats if suffix in f.suffixes and f.json_member is None]
    if len(by_name) == 1:
        return by_name[0]
    head = _read_head(path, given)
    shape = _json_shape(head)
    if shape is not None:
        return _json_format(given, shape, formats)
    if any(suffix in f.suffixes for f in formats if f.json_member is not None):
        raise SourceError(
            f"{given} is not JSON", hint="a .json transcript is CRD3 or WhisperX JSON"
        )
    sniffed = [f.name for f in formats if f.sniff is not None and f.sniff(head)]
    if len(sniffed) == 1:
        return sniffed[0]
    if sniffed:
        raise _ambiguous(given, sniffed, "it could be " + " or ".join(sniffed))
    raise _ambiguous(
        given,
        [],
        f"its name does not end in {_suffixes(formats)}, and it does not start as "
        "WebVTT, SubRip or JSON",
    )


def _suffixes(formats: list[TranscriptFormat]) -> str:
    suffixes = list(dict.fromkeys(suffix for f in formats for suffix in f.suffixes))
    if len(suffixes) < 2:
        return "".join(suffixes)
    return ", ".join(suffixes[:-1]) + " or " + suffixes[-1]


def _json_format(given: str, shape: _JsonShape, formats: list[TranscriptFormat]) -> str:
    if shape.top == "list":
        if (
            shape.first_item_object
            and "text" not in shape.members
            and (_DIARIZATION_MEMBERS & shape.members)
        ):
            raise SourceError(
                f"{given} is a diarization result (speaker turns without text), not a transcript",
                hint="give the WhisperX transcript it belongs to (the JSON with "
                '"segments"), with --format whisperx',
            )
        raise SourceError(
            f"{given} is a JSON list, not a transcript",
            hint='a JSON transcript is an object: CRD3 ("TURNS") or WhisperX ("segments")',
        )
    candidates = [
        f.name for f in formats if f.json_member is not None and f.json_member in shape.members
    ]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        members = " and ".join(f'"{f.json_member}"' for f in formats if f.name in candidates)
        raise _ambiguous(given, candidates, f"it has both {members}")
    raise SourceError(
        f'{given} is a JSON object with neither "TURNS" (CRD3) nor "segments" (WhisperX)',
        hint="give a CRD3 or WhisperX transcript, or --format to read it as one",
    )

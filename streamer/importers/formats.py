"""The import formats and their options: one entry point for the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from streamer.framework.errors import ConfigurationError
from streamer.framework.source.unit import SourceUnit
from streamer.importers.crd3 import read_crd3
from streamer.importers.srt import read_srt
from streamer.importers.text import read_text
from streamer.importers.webvtt import read_webvtt
from streamer.importers.whisperx import read_whisperx

FORMATS = ("crd3", "whisperx", "webvtt", "srt", "text")
UNITS = ("turn", "line")
SPEAKER_PREFIX_FORMATS = ("srt", "webvtt")
ROLLING_FORMATS = ("srt", "webvtt")


def read_utterances(
    format_name: str,
    stream: BinaryIO,
    *,
    unit: str | None = None,
    speaker_prefix: bool = False,
    dedupe_rolling: bool = False,
) -> Iterator[SourceUnit]:
    """The utterances of ``stream`` read as ``format_name``. Options that the format does
    not take are usage errors (raised before anything is read)."""
    if format_name not in FORMATS:
        raise ConfigurationError(
            f"unknown import format {format_name[:32]!r}", hint="formats: " + ", ".join(FORMATS)
        )
    if unit is not None:
        if format_name != "crd3":
            raise ConfigurationError("--unit applies only to the crd3 format")
        if unit not in UNITS:
            raise ConfigurationError(f"--unit must be one of: {', '.join(UNITS)}")
    if speaker_prefix and format_name not in SPEAKER_PREFIX_FORMATS:
        raise ConfigurationError(
            "--speaker-prefix applies only to the srt and webvtt formats",
            hint="the text format always reads 'SPEAKER: text'",
        )
    if dedupe_rolling and format_name not in ROLLING_FORMATS:
        raise ConfigurationError("--dedupe-rolling applies only to the srt and webvtt formats")
    if format_name == "crd3":
        return read_crd3(stream, "line" if unit == "line" else "turn")
    if format_name == "whisperx":
        return read_whisperx(stream)
    if format_name == "webvtt":
        return read_webvtt(stream, speaker_prefix, dedupe_rolling)
    if format_name == "srt":
        return read_srt(stream, speaker_prefix, dedupe_rolling)
    return read_text(stream)

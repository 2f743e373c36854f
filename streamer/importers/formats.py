"""Transcript formats: each one a ``TranscriptFormat``, registered as a ``streamer.formats``
entry point beside its reader (streamer's five in ``pyproject.toml``, a plugin's in its own).

``FORMATS`` is the registry: ``FORMATS.names()`` is every format the CLI offers,
``FORMATS.get(name)`` one format. ``read_transcript`` checks the import options against the
format's declaration, then reads (``read_utterances``: the same, the options as keywords).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, BinaryIO

from streamer.framework.errors.types import ConfigurationError
from streamer.framework.plugins.entry_points import FORMATS_GROUP, Plugins, named
from streamer.framework.source.source_unit import SourceUnit

# The longest --speaker-carry accepted: a day (a longer silence is no longer a turn).
MAX_SPEAKER_CARRY_S = 86_400.0


@dataclass(frozen=True, kw_only=True)
class ImportOptions:
    """The import options, checked against the format: ``unit`` is one of the format's
    ``units`` (its first when not given); the flags only for formats that take them.
    ``speaker_carry`` (with ``speaker_prefix``): the seconds of silence over which a cue
    without a label keeps the last label (``None``: off)."""

    unit: str | None = None
    speaker_prefix: bool = False
    dedupe_rolling: bool = False
    speaker_carry: float | None = None

    @property
    def carry_ms(self) -> int | None:
        """``speaker_carry`` in milliseconds (``None``: off)."""
        return None if self.speaker_carry is None else round(self.speaker_carry * 1000)

    def given(self) -> dict[str, object]:
        """The options given, by their command-line names (for a stage's configuration)."""
        given: dict[str, object] = {}
        if self.unit is not None:
            given["--unit"] = self.unit
        if self.speaker_prefix:
            given["--speaker-prefix"] = True
        if self.dedupe_rolling:
            given["--dedupe-rolling"] = True
        if self.speaker_carry is not None:
            given["--speaker-carry"] = self.speaker_carry
        return given


Reader = Callable[[BinaryIO, ImportOptions], Iterator[SourceUnit]]
"""``read(stream, options)``: the source units of a transcript, in transcript order, read
as a stream (never the whole transcript in memory). Bad input raises ``SourceError``."""

ParallelWriter = Callable[[str, BinaryIO, ImportOptions, int, IO[bytes]], tuple[str, int] | None]
"""``write(document_id, stream, options, jobs, out)``: ``document.write_document`` of what
``read`` reads, by ``jobs`` processes (``importers.parallel_import``): the same bytes, or
``None`` to read it again with ``read`` (which raises the error, if any)."""


@dataclass(frozen=True)
class TranscriptFormat:
    """One transcript format.

    ``name`` is what the user types (``streamer import NAME``; the entry point's name);
    ``summary`` one line for the docs; ``read`` the reader. ``units``: the values of
    ``--unit`` it takes, its default first (empty: it takes no ``--unit``).
    ``speaker_prefix`` and ``dedupe_rolling``: whether it takes those flags. ``suffixes``:
    the file name suffixes (``.vtt``) its transcripts usually have, for format detection.
    ``speaker_prefix_hint``: said when ``--speaker-prefix`` is given to a format that does
    not take it (e.g. because it always reads ``SPEAKER: text``). Format detection
    (``importers.detection``): ``json_member``, for a JSON format, the top-level member that
    holds its items (``TURNS``); ``sniff(head)``, whether a file starting with ``head`` (its
    first bytes) is in this format, for a file whose name does not say. ``parallel``:
    how ``--jobs N`` imports a regular file in this format (``None``: as ``--jobs 1``).
    ``speaker_prefix`` formats also take ``--speaker-carry``."""

    name: str
    summary: str
    read: Reader
    units: tuple[str, ...] = ()
    speaker_prefix: bool = False
    dedupe_rolling: bool = False
    suffixes: tuple[str, ...] = ()
    speaker_prefix_hint: str | None = None
    json_member: str | None = None
    sniff: Callable[[bytes], bool] | None = None
    parallel: ParallelWriter | None = None


FORMATS: Plugins[TranscriptFormat] = Plugins(
    FORMATS_GROUP, "import format", named(TranscriptFormat)
)


# Names a user may type for a format, where they are unambiguous: the file suffix
# (``vtt``, ``txt``) and the format's other name (``subrip``, ``json`` is not one: it
# could be CRD3 or WhisperX).
FORMAT_ALIASES = {"vtt": "webvtt", "txt": "text", "subrip": "srt"}


def canonical_format(name: str) -> str:
    """The format ``name`` names: itself, or the format an alias stands for."""
    return FORMAT_ALIASES.get(name.strip().lower(), name) if name not in FORMATS else name


def _taking(flag: str) -> str:
    names = [name for name in FORMATS.names() if getattr(FORMATS.get(name), flag)]
    return " and ".join(names)


def check_options(
    format_name: str, options: ImportOptions, where: str = "", read_as: str = ""
) -> TranscriptFormat:
    """The format ``format_name``, when it takes ``options`` (else ``ConfigurationError``
    naming the option and the format; ``read_as`` says how the format was found:
    ``"bridge.json, read as crd3"``)."""
    fmt = FORMATS.get(format_name, where)
    what = read_as or f"the {format_name} format"
    if options.unit is not None:
        if not fmt.units:
            raise ConfigurationError(
                f"--unit does not apply to {what} (only to {_taking('units')})",
                hint="leave --unit out" + (", or give --format crd3" if "crd3" in FORMATS else ""),
            )
        if options.unit not in fmt.units:
            raise ConfigurationError(f"--unit must be one of: {', '.join(fmt.units)}")
    for name, on, flag in (
        ("--speaker-prefix", options.speaker_prefix, "speaker_prefix"),
        ("--dedupe-rolling", options.dedupe_rolling, "dedupe_rolling"),
        ("--speaker-carry", options.speaker_carry is not None, "speaker_prefix"),
    ):
        if on and not getattr(fmt, flag):
            raise ConfigurationError(
                f"{name} does not apply to {what} (only to {_taking(flag)})",
                hint=fmt.speaker_prefix_hint or f"leave {name} out",
            )
    carry = options.speaker_carry
    if carry is not None:
        if not options.speaker_prefix:
            raise ConfigurationError(
                "--speaker-carry needs --speaker-prefix",
                hint="the label carried is the 'Name:' that --speaker-prefix reads",
            )
        if not (math.isfinite(carry) and 0 <= carry <= MAX_SPEAKER_CARRY_S):
            raise ConfigurationError(
                f"--speaker-carry must be a number of seconds from 0 to {MAX_SPEAKER_CARRY_S:,.0f}"
            )
    return fmt


def read_utterances(
    format_name: str,
    stream: BinaryIO,
    *,
    unit: str | None = None,
    speaker_prefix: bool = False,
    dedupe_rolling: bool = False,
    speaker_carry: float | None = None,
    read_as: str = "",
) -> Iterator[SourceUnit]:
    """The utterances of ``stream`` read as ``format_name`` (``read_transcript``)."""
    options = ImportOptions(
        unit=unit,
        speaker_prefix=speaker_prefix,
        dedupe_rolling=dedupe_rolling,
        speaker_carry=speaker_carry,
    )
    return read_transcript(format_name, stream, options, read_as=read_as)


def read_transcript(
    format_name: str, stream: BinaryIO, options: ImportOptions, *, read_as: str = ""
) -> Iterator[SourceUnit]:
    """The utterances of ``stream`` read as ``format_name`` with ``options`` (``unit``:
    the format's first when not given). Options that the format does not take are usage
    errors (raised before anything is read)."""
    fmt = check_options(format_name, options, read_as=read_as)
    if options.unit is None and fmt.units:
        options = dataclasses.replace(options, unit=fmt.units[0])
    return fmt.read(stream, options)

"""Transcript formats: each one a ``TranscriptFormat``, registered as a ``streamer.formats``
entry point beside its reader (streamer's five in ``pyproject.toml``, a plugin's in its own).

``FORMATS`` is the registry: ``FORMATS.names()`` is every format the CLI offers,
``FORMATS.get(name)`` one format. ``read_utterances`` checks the import options against the
format's declaration, then reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from streamer.framework.errors import ConfigurationError
from streamer.framework.plugins import FORMATS_GROUP, Plugins, named
from streamer.framework.source.unit import SourceUnit


@dataclass(frozen=True)
class ImportOptions:
    """The import options, checked against the format: ``unit`` is one of the format's
    ``units`` (its first when not given); the two flags only for formats that take them."""

    unit: str | None = None
    speaker_prefix: bool = False
    dedupe_rolling: bool = False


Reader = Callable[[BinaryIO, ImportOptions], Iterator[SourceUnit]]
"""``read(stream, options)``: the source units of a transcript, in transcript order, read
as a stream (never the whole transcript in memory). Bad input raises ``SourceError``."""


@dataclass(frozen=True)
class TranscriptFormat:
    """One transcript format.

    ``name`` is what the user types (``streamer import NAME``; the entry point's name);
    ``summary`` one line for the docs; ``read`` the reader. ``units``: the values of
    ``--unit`` it takes, its default first (empty: it takes no ``--unit``).
    ``speaker_prefix`` and ``dedupe_rolling``: whether it takes those flags. ``suffixes``:
    the file name suffixes (``.vtt``) its transcripts usually have, for format detection.
    ``speaker_prefix_hint``: said when ``--speaker-prefix`` is given to a format that does
    not take it (e.g. because it always reads ``SPEAKER: text``)."""

    name: str
    summary: str
    read: Reader
    units: tuple[str, ...] = ()
    speaker_prefix: bool = False
    dedupe_rolling: bool = False
    suffixes: tuple[str, ...] = ()
    speaker_prefix_hint: str | None = None


FORMATS: Plugins[TranscriptFormat] = Plugins(
    FORMATS_GROUP, "import format", named(TranscriptFormat)
)


def _taking(flag: str) -> str:
    names = [name for name in FORMATS.names() if getattr(FORMATS.get(name), flag)]
    plural = "s" if len(names) > 1 else ""
    return f"the {' and '.join(names)} format{plural}"


def check_options(format_name: str, options: ImportOptions, where: str = "") -> TranscriptFormat:
    """The format ``format_name``, when it takes ``options`` (else ``ConfigurationError``)."""
    fmt = FORMATS.get(format_name, where)
    if options.unit is not None:
        if not fmt.units:
            raise ConfigurationError(f"--unit applies only to {_taking('units')}")
        if options.unit not in fmt.units:
            raise ConfigurationError(f"--unit must be one of: {', '.join(fmt.units)}")
    if options.speaker_prefix and not fmt.speaker_prefix:
        raise ConfigurationError(
            f"--speaker-prefix applies only to {_taking('speaker_prefix')}",
            hint=fmt.speaker_prefix_hint,
        )
    if options.dedupe_rolling and not fmt.dedupe_rolling:
        raise ConfigurationError(f"--dedupe-rolling applies only to {_taking('dedupe_rolling')}")
    return fmt


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
    options = ImportOptions(unit, speaker_prefix, dedupe_rolling)
    fmt = check_options(format_name, options)
    if unit is None and fmt.units:
        options = ImportOptions(fmt.units[0], speaker_prefix, dedupe_rolling)
    return fmt.read(stream, options)

"""Errors with a documented exit status and a content-safe, one-line message.

A message may name files, lanes, record positions, unit IDs, JSON paths and line
numbers; it never carries transcript text, speakers or record values.
"""

from __future__ import annotations


class StreamerError(Exception):
    """Base of every expected failure. ``exit_status`` is what the CLI returns."""

    exit_status = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        text = self.message if self.hint is None else f"{self.message} (hint: {self.hint})"
        return " ".join(text.split())


class ConfigurationError(StreamerError):
    """The configuration or the command line is wrong: nothing was read."""

    exit_status = 2


class InputError(StreamerError):
    """The source document, a lane output or a reference is invalid."""

    exit_status = 3


class SourceError(InputError):
    """The source document is malformed or breaks the contract."""


class LaneOutputError(InputError):
    """A normalized lane output is malformed or breaks its artifact kind's contract."""


class SourceReferenceError(InputError):
    """A direct source reference does not resolve in the source document."""

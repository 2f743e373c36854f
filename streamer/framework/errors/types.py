"""Errors with a documented exit status and a content-safe, one-line message.

A message may name files, lanes, record positions, unit IDs, JSON paths and line
numbers; it never carries transcript text, speakers or record values.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What ``streamer`` returns: the one list every layer names a status from (the API's
    results, the errors below, the CLI's entry point; docs/operations.md tables them)."""

    OK = 0
    UNEXPECTED = 1  # a failure streamer did not expect (a bug): run again with --debug
    USAGE = 2  # the command line or the configuration is wrong: nothing was read
    INVALID_INPUT = 3  # the source, a lane output, a reference or a bundle is invalid
    INCOMPLETE = 4  # extract or run: a lane failed; batch: a session failed
    BELOW_FLOOR = 5  # eval: a lane's precision or recall is below --min-precision/--min-recall
    HANGUP = 129  # SIGHUP (128 + 1)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
    QUIT = 131  # SIGQUIT (128 + 3)
    BROKEN_PIPE = 141  # standard output closed early (128 + SIGPIPE)
    TERMINATED = 143  # SIGTERM (128 + 15)


class StreamerError(Exception):
    """Base of every expected failure. ``exit_status`` is what the CLI returns."""

    exit_status: ExitStatus = ExitStatus.UNEXPECTED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        text = self.message if self.hint is None else f"{self.message} (hint: {self.hint})"
        return " ".join(text.split())


class ConfigurationError(StreamerError):
    """The configuration or the command line is wrong: nothing was read."""

    exit_status = ExitStatus.USAGE


class InputError(StreamerError):
    """The source document, a lane output or a reference is invalid."""

    exit_status = ExitStatus.INVALID_INPUT


class SourceError(InputError):
    """The source document is malformed or breaks the contract."""


class LaneOutputError(InputError):
    """A normalized lane output is malformed or breaks its artifact kind's contract."""


class SourceReferenceError(InputError):
    """A direct source reference does not resolve in the source document."""

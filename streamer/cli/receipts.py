"""The one JSON receipt line a command prints on stdout, and the failures it reports after
it (exit status 4: a lane or a session failed)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import orjson
import typer

from streamer.cli.app import CommandFailed
from streamer.framework.errors.types import ExitStatus


class Receipted(Protocol):
    def receipt(self) -> Mapping[str, object]: ...


class PartlyFailing(Receipted, Protocol):
    @property
    def failures(self) -> Sequence[str]: ...

    @property
    def exit_status(self) -> ExitStatus: ...


def print_receipt(result: Receipted) -> None:
    """The receipt of ``result``, one line of JSON on stdout."""
    typer.echo(orjson.dumps(result.receipt()).decode("utf-8"))


def print_receipt_and_failures(result: PartlyFailing) -> None:
    """The receipt of ``result``; then, when part of it failed, its failures (one error
    line each) and its exit status (``CommandFailed``)."""
    print_receipt(result)
    if result.exit_status:
        raise CommandFailed(result.failures, result.exit_status)


def stdout_is_terminal() -> bool:
    return sys.stdout is not None and sys.stdout.isatty()


def print_result(result: PartlyFailing, summary: Callable[[], str], *, as_json: bool) -> None:
    """On a terminal, ``summary()`` (a few lines for a person); else, or with ``as_json``
    (``--json``), the JSON receipt. Then the failures, as ``print_receipt_and_failures``."""
    if as_json or not stdout_is_terminal():
        print_receipt(result)
    else:
        typer.echo(summary())
    if result.exit_status:
        raise CommandFailed(result.failures, result.exit_status)

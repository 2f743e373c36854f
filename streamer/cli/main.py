"""The ``streamer`` entry point: runs the typer app and turns every failure into one
content-safe line on standard error with the documented exit status.

Exit status: 0 success; 1 unexpected failure; 2 usage or configuration error;
3 invalid input; 4 incomplete (``streamer extract``: a lane
failed); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM); 141 closed pipe.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Sequence
from types import FrameType
from typing import NoReturn

import click
from click.exceptions import ClickException, UsageError
from typer.main import get_command

from streamer.cli import (  # each import registers its command
    bundle_command,  # noqa: F401
    chunk_command,  # noqa: F401
    evidence_command,  # noqa: F401
    extract_command,  # noqa: F401
    import_command,  # noqa: F401
    normalize_command,  # noqa: F401
    report_command,  # noqa: F401
    schema_command,  # noqa: F401
    validate_command,  # noqa: F401
)
from streamer.cli.app import app
from streamer.framework.errors import StreamerError

EXIT_UNEXPECTED = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(BaseException):
    """Raised from the SIGTERM handler so that cleanup runs as for Ctrl-C."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def _error(message: str) -> None:
    print(f"streamer: error: {' '.join(message.split())}", file=sys.stderr)


def _silence_stdout() -> None:
    # Python would report the closed pipe again when flushing stdout at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> NoReturn:
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    # --debug is accepted anywhere on the line, before or after the command.
    arguments = [argument for argument in arguments if argument != "--debug"]
    signal.signal(signal.SIGTERM, _terminate)
    status = 0
    try:
        # The command is driven directly rather than through typer's main(), which would
        # print its own multi-line messages and turn a closed pipe into status 1.
        command = get_command(app)
        with command.make_context("streamer", arguments) as context:
            command.invoke(context)
    except StreamerError as error:
        if debug:
            traceback.print_exc()
        _error(error.one_line())
        status = error.exit_status
    except click.exceptions.Exit as exit_:
        status = exit_.exit_code
    except UsageError as error:
        hint = (
            " (hint: see 'streamer --help')"
            if error.ctx is None
            else (f" (hint: see '{error.ctx.command_path} --help')")
        )
        _error(error.format_message() + hint)
        status = EXIT_USAGE
    except ClickException as error:
        _error(error.format_message())
        status = error.exit_code
    except BrokenPipeError:
        _silence_stdout()
        status = EXIT_BROKEN_PIPE
    except (KeyboardInterrupt, click.exceptions.Abort):
        status = EXIT_INTERRUPTED
    except Terminated:
        status = EXIT_TERMINATED
    except Exception as error:
        if debug:
            traceback.print_exc()
        _error(
            f"unexpected failure ({type(error).__name__})"
            + ("" if debug else " (hint: run again with --debug for a traceback)")
        )
        status = EXIT_UNEXPECTED
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        status = status or EXIT_BROKEN_PIPE
    sys.exit(status)

"""The ``streamer`` entry point: runs the typer app and turns every failure into one
content-safe line on standard error with the documented exit status.

Exit status: 0 success; 1 unexpected failure; 2 usage or configuration error;
3 invalid input; 4 incomplete (``streamer extract`` or ``streamer run``: a lane
failed; ``streamer batch``: a session failed); 130 interrupted (Ctrl-C); 143 terminated
(SIGTERM); 129 hang-up (SIGHUP); 131 quit (SIGQUIT); 141 closed pipe. SIGTERM, SIGHUP
and SIGQUIT end a run the way Ctrl-C does (everything temporary is removed); a signal
ignored when streamer starts (``nohup``) stays ignored.

A standard stream closed when streamer starts (``<&-``, ``>&-``, ``2>&-``) is reopened on
``/dev/null``, so that no file streamer opens takes its descriptor: reading standard
input or writing standard output then fails with a usage error (exit status 2) before
anything is read, and messages for a closed standard error are lost (the exit status
still tells).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import traceback
import types
from collections.abc import Sequence
from types import FrameType
from typing import Any, NoReturn

import click
from click.exceptions import ClickException, UsageError
from typer.main import get_command

from streamer.cli.app import DEBUG_HELP, CommandFailed, app, debugging, set_debugging
from streamer.framework.errors.types import ExitStatus, StreamerError

# The signals that end a run as Ctrl-C does, and the status each gives (128 + number).
TERMINATING = {
    signal.SIGTERM: ExitStatus.TERMINATED,
    signal.SIGHUP: ExitStatus.HANGUP,
    signal.SIGQUIT: ExitStatus.QUIT,
}


class Terminated(BaseException):
    """Raised from the SIGTERM, SIGHUP and SIGQUIT handlers so that cleanup runs as for
    Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def _install_signal_handlers() -> None:
    for signum in TERMINATING:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, _terminate)


def _reopen_closed_standard_streams() -> None:
    """Put ``/dev/null`` on a closed descriptor 0, 1 or 2 (Python has already set its
    ``sys.stdin``, ``sys.stdout`` or ``sys.stderr`` to ``None``)."""
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            opened = os.open(os.devnull, os.O_RDONLY if descriptor == 0 else os.O_WRONLY)
            if opened != descriptor:
                os.dup2(opened, descriptor)
                os.close(opened)


def _error(message: str) -> None:
    if sys.stderr is not None:  # closed (2>&-): the status alone tells
        print(f"streamer: error: {' '.join(message.split())}", file=sys.stderr)


def stopped_line(status: int, note: str = "nothing published") -> str:
    """The one line of a command ended by a signal (``status``: 128 + its number)."""
    how = {129: "hung up", 130: "interrupted", 131: "quit", 143: "terminated"}[status]
    return f"streamer: {how} ({' '.join(note.split())})"


def _stopped(status: int, error: BaseException) -> None:
    """Print the line of a command ended by a signal: what was kept (a command that keeps
    something for a rerun adds it as the exception's note), else nothing published."""
    notes = getattr(error, "__notes__", None) or ["nothing published"]
    if sys.stderr is not None:
        with contextlib.suppress(OSError):
            print(stopped_line(status, notes[-1]), file=sys.stderr)


def _silence_stdout() -> None:
    # Python would report the closed pipe again when flushing stdout at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _unraisable(unraisable: Any) -> None:
    # Generators of the JSON parser, closed at exit after Ctrl-C, raise in their cleanup:
    # shown only with --debug, as every traceback is.
    if debugging():
        sys.__unraisablehook__(unraisable)


def _set_debug(context: click.Context, parameter: click.Parameter, value: bool) -> None:
    set_debugging(value)


def _traceback() -> None:
    if debugging() and sys.stderr is not None:
        traceback.print_exc()


# ``streamer --help`` lists the commands in these groups, in this order (a command not
# named here, a plugin's, comes last under "Other commands").
COMMAND_GROUPS = (
    ("Start here", ("run", "init", "config")),
    (
        "Stages, one at a time (what run does)",
        ("import", "chunk", "extract", "normalize", "evidence", "bundle", "batch"),
    ),
    ("Consumers of a bundle", ("validate", "report", "review", "campaign", "eval", "schema")),
)


# An example or two under every command's help, as a person would type them.
EXAMPLES = {
    "run": (
        "streamer run session.vtt --output out/session",
        "streamer run captions.srt --output out/s2 --speaker-prefix --speaker-carry 2",
        "streamer run C1E050.json --output out/C1E050 \\",
        "    --model-url http://localhost:11434/v1 --model qwen2.5:7b-instruct",
        "streamer run session.vtt --output out/session --config streamer.yaml",
    ),
    "init": ("streamer init", "streamer init campaign/"),
    "config": (
        "streamer config --show > streamer.yaml",
        "streamer config --show --model-url http://localhost:11434/v1 --model qwen2.5:7b-instruct",
    ),
    "import": (
        "streamer import webvtt session.vtt --output session.jsonl",
        "streamer import srt captions.srt --speaker-prefix --speaker-carry 2 > session.jsonl",
    ),
    "chunk": ("streamer chunk --config streamer.yaml --source session.jsonl",),
    "extract": (
        "streamer extract --config streamer.yaml --source session.jsonl --output-dir candidates",
    ),
    "normalize": (
        "streamer normalize --config streamer.yaml --source session.jsonl \\",
        "    --candidates-dir candidates --output-dir lanes",
    ),
    "evidence": (
        "streamer evidence --config streamer.yaml --source session.jsonl --lanes-dir lanes",
    ),
    "bundle": (
        "streamer bundle --config streamer.yaml --source session.jsonl --lanes-dir lanes \\",
        "    --output out/session",
    ),
    "batch": (
        "streamer batch campaign.csv --output-dir out",
        "streamer batch --config streamer.yaml campaign.csv --output-dir out",
        "streamer batch campaign.csv --output-dir out --notes notes/",
    ),
    "validate": ("streamer validate out/session", "streamer validate out/campaign.registry.json"),
    "campaign": (
        "streamer campaign out/",
        "streamer campaign --config streamer.yaml out/",
        "streamer campaign out/ --notes notes/ --force",
    ),
    "report": (
        "streamer report out/session --output session.html",
        "streamer report out/session > session.html",
    ),
    "review": (
        "streamer review out/session --accept npc-0001 --reject spell-0003",
        "streamer review out/session --reject npc-0002 --note npc-0002 'a misheard name'",
    ),
    "eval": (
        "streamer eval out/session reference.json",
        "streamer eval out/session reference.json --min-recall 0.8 --min-precision spells=0.9",
        "streamer eval out/ references/ --json   # a batch's output folder, a reference a session",
        "streamer eval --reference-from out/session --output reference.json",
    ),
    "schema": (
        "streamer schema --list",
        "streamer schema notarius_dnd_spell_casts_v1",
    ),
}


def _epilog(lines: Sequence[str]) -> str:
    # "\b" keeps click from rewrapping the lines
    return "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in lines)


def _format_commands(
    self: click.Group, context: click.Context, formatter: click.HelpFormatter
) -> None:
    """The commands, by group (``COMMAND_GROUPS``), each with its first line of help."""
    limit = formatter.width - 6 - max(len(name) for name in self.commands)
    listed: set[str] = set()
    groups = [*COMMAND_GROUPS, ("Other commands", tuple(sorted(self.commands)))]
    for title, names in groups:
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None or command.hidden or name in listed:
                continue
            listed.add(name)
            rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section(title):
                formatter.write_dl(rows)


# The module of each command (``streamer.cli.<module>``), whose import registers it with
# the app: a run imports only its command's (``commands_needed``), the rest are not read.
COMMAND_MODULES = {
    "batch": "batch_command",
    "bundle": "bundle_command",
    "campaign": "campaign_command",
    "chunk": "chunk_command",
    "config": "config_command",
    "init": "config_command",
    "eval": "eval_command",
    "evidence": "evidence_command",
    "extract": "extract_command",
    "import": "import_command",
    "normalize": "normalize_command",
    "report": "report_command",
    "review": "review_command",
    "run": "run_command",
    "schema": "schema_command",
    "validate": "validate_command",
}


def load_commands(names: Sequence[str] | None = None) -> None:
    """Register the commands ``names`` with the app (``None``: every command), in the
    order of their modules' names."""
    wanted = COMMAND_MODULES.values() if names is None else [COMMAND_MODULES[n] for n in names]
    for module in sorted(set(wanted)):
        importlib.import_module(f"streamer.cli.{module}")


def command_named(arguments: Sequence[str]) -> str | None:
    """The command that ``arguments`` run, when nothing but ``--debug`` comes before its
    name and it is one of streamer's (``None``: any other line, such as ``--help``, a
    completion option or a mistyped name, for which every command is loaded)."""
    for argument in arguments:
        if argument == "--debug":
            continue
        return argument if argument in COMMAND_MODULES else None
    return None


def commands_needed(arguments: Sequence[str]) -> list[str] | None:
    """The commands ``arguments`` need loaded: none when ``--version`` comes first but for
    ``--debug`` (both are eager: the version is printed, and the line ends, before a
    command is looked for), the command they run (``command_named``), else every command
    (``None``)."""
    if next((argument for argument in arguments if argument != "--debug"), "") == "--version":
        return []
    name = command_named(arguments)
    return None if name is None else [name]


def command_tree(names: Sequence[str] | None = None) -> click.Group:
    """The click command of the app, ``--debug`` accepted by every command (click parses
    it, so ``--output --debug`` names a file ``--debug``); its help lists the commands by
    group. ``names``: only those commands are loaded (the others are not imported: a
    faster start), else every command."""
    load_commands(names)
    group = get_command(app)
    assert isinstance(group, click.Group)
    group.format_commands = types.MethodType(_format_commands, group)  # type: ignore[method-assign]
    for name, command in group.commands.items():
        if name in EXAMPLES and not command.epilog:
            command.epilog = _epilog(EXAMPLES[name])
        if not any(parameter.name == "debug" for parameter in command.params):
            command.params.append(
                click.Option(
                    ["--debug"],
                    is_flag=True,
                    expose_value=False,
                    callback=_set_debug,
                    help=DEBUG_HELP,
                )
            )
    return group


# The variable a shell's completion script sets when it asks for completions (what
# 'streamer --install-completion' installs).
COMPLETE_VARIABLE = "_STREAMER_COMPLETE"


def main(argv: Sequence[str] | None = None) -> NoReturn:
    _reopen_closed_standard_streams()
    if os.environ.get(COMPLETE_VARIABLE):  # the shell asks what to complete: answer, exit
        command_tree()._main_shell_completion({}, "streamer", COMPLETE_VARIABLE)
    arguments = list(sys.argv[1:] if argv is None else argv)
    _install_signal_handlers()
    sys.unraisablehook = _unraisable
    status: int = ExitStatus.OK
    try:
        # The command is driven directly rather than through typer's main(), which would
        # print its own multi-line messages and turn a closed pipe into status 1.
        command = command_tree(commands_needed(arguments))
        with command.make_context("streamer", arguments) as context:
            command.invoke(context)
    except CommandFailed as failed:
        for line in failed.lines:
            _error(line)
        status = failed.status
    except StreamerError as error:
        _traceback()
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
        status = ExitStatus.USAGE
    except ClickException as error:
        _error(error.format_message())
        status = error.exit_code
    except BrokenPipeError:
        _silence_stdout()
        status = ExitStatus.BROKEN_PIPE
    except (KeyboardInterrupt, click.exceptions.Abort) as interrupted:
        status = ExitStatus.INTERRUPTED
        _stopped(status, interrupted)
    except Terminated as terminated:
        status = TERMINATING[signal.Signals(terminated.signum)]
        _stopped(status, terminated)
    except Exception as error:
        _traceback()
        _error(
            f"unexpected failure ({type(error).__name__})"
            + ("" if debugging() else " (hint: run again with --debug for a traceback)")
        )
        status = ExitStatus.UNEXPECTED
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        status = status or ExitStatus.BROKEN_PIPE
    except OSError:  # a terminal hung up
        status = status or ExitStatus.UNEXPECTED
    if argv is None:
        _ignore_late_signals()
    sys.exit(int(status))


def _ignore_late_signals() -> None:
    """The command is over and its status decided: a Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT)
    arriving while the interpreter shuts down would kill the process by that signal, with
    no line and not the command's status. The process exits with its status instead."""
    for signum in (signal.SIGINT, *TERMINATING):
        signal.signal(signum, signal.SIG_IGN)

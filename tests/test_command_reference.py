"""The command line's own help: every argument's help shows (FORMAT lists the formats),
``docs/commands.md`` is the real ``--help`` of every command (regenerate with ``make docs``),
``--version`` works and ``--debug`` given as an option's value is that value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from streamer import __version__, api
from streamer.cli import reference
from streamer.cli.main import command_tree
from tests.support import REPO, invoke

COMMANDS = REPO / "docs" / "commands.md"


def test_the_committed_command_reference_is_the_real_help() -> None:
    assert COMMANDS.read_text(encoding="utf-8") == reference.render(), (
        "docs/commands.md is out of date: run 'make docs'"
    )


def test_every_argument_and_option_shows_its_help() -> None:
    root = command_tree()
    for name, command in root.commands.items():
        page = invoke([name, "--help"])
        assert page.status == 0
        text = " ".join(page.stdout.decode().split())
        for param in command.params:
            assert isinstance(param, (click.Argument, click.Option))
            help_text = getattr(param, "help", None)
            assert help_text, f"{name} {param.name} has no help"
            assert " ".join(help_text.split())[:40] in text, f"{name} {param.name}"


def test_import_help_lists_every_format() -> None:
    page = " ".join(invoke(["import", "--help"]).stdout.decode().split())
    formats = ", ".join(fmt.name for fmt in api.import_formats())
    assert formats == "crd3, srt, text, webvtt, whisperx"
    aliases = "vtt for webvtt, txt for text, subrip for srt"
    assert f"FORMAT The transcript's format, one of: {formats} (also {aliases})." in page


def test_version() -> None:
    run = invoke(["--version"])
    assert (run.status, run.stdout, run.stderr) == (0, f"streamer {__version__}\n".encode(), "")


def test_debug_as_an_option_value_is_that_value(tmp_path: Path) -> None:
    vtt = REPO / "fixtures" / "import" / "bridge.vtt"
    run = invoke(["import", "webvtt", str(vtt), "--output", "--debug"], cwd=tmp_path)
    assert (run.status, run.stderr) == (0, "")
    assert (tmp_path / "--debug").read_bytes().startswith(b'{"document_id":"bridge"')


def test_debug_after_the_command_still_shows_a_traceback(tmp_path: Path) -> None:
    run = invoke(["import", "webvtt", "missing.vtt", "--debug"], cwd=tmp_path)
    assert run.status == 2
    assert run.stderr.startswith("Traceback (most recent call last):")
    assert run.stderr.endswith(
        "streamer: error: input file missing.vtt does not exist or is not a file (hint: check INPUT, or use - for stdin)\n"
    )


def test_a_command_reads_only_its_own_module_and_shows_the_same_help(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``streamer NAME`` imports the module of NAME's command only (a faster start), and
    its ``--help`` is the page of the whole command tree, word for word."""
    from streamer.cli.main import COMMAND_MODULES

    monkeypatch.setenv("COLUMNS", "200")  # click's help: 80 columns less 2 on any terminal
    root = command_tree()
    context = click.Context(root, info_name="streamer", terminal_width=78)
    for name in COMMAND_MODULES:
        shown = invoke(["--debug", name, "--help"])
        assert shown.status == 0, name
        command = root.commands[name]
        page = click.Context(command, info_name=name, parent=context, terminal_width=78)
        assert shown.stdout.decode() == command.get_help(page) + "\n", name
    script = (
        "import sys\nfrom streamer.cli import main\ntry:\n    main.main(['evidence', '--help'])\n"
        "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if 'cli.' in m))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.splitlines()[-1]
    assert "streamer.cli.evidence_command" in loaded
    others = set(COMMAND_MODULES.values()) - {"evidence_command"}
    assert [m for m in others if f"streamer.cli.{m}'" in loaded] == []


def test_help_starts_a_person_off() -> None:
    shown = invoke(["--help"]).stdout.decode()
    assert shown.splitlines()[2] == "  Start here: streamer run session.vtt --output out/session"
    sections = [line for line in shown.splitlines() if line and not line.startswith(" ")]
    assert sections[-3:] == [
        "Start here:",
        "Stages, one at a time (what run does):",
        "Consumers of a bundle:",
    ]
    assert "--install-completion" in shown
    for command in ("run", "init", "config", "import", "chunk", "extract", "normalize",
                    "evidence", "bundle", "batch", "validate", "report", "schema"):  # fmt: skip
        help_text = invoke([command, "--help"]).stdout.decode()
        assert "Examples:" in help_text, command
        assert f"    streamer {command}" in help_text, command


def test_shell_completion_answers_the_shell() -> None:
    env = {"_STREAMER_COMPLETE": "complete_bash", "COMP_WORDS": "streamer run --speaker-"}
    completed = invoke([], env={**env, "COMP_CWORD": "2"})
    assert (completed.status, completed.stdout.split()) == (
        0,
        [b"--speaker-prefix", b"--speaker-carry"],
    )

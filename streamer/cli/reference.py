"""The command reference (``docs/commands.md``), generated from the real ``--help`` of
every command, so that it cannot drift from the code.

Regenerate it after adding or changing a command or an option::

    make docs        # or: python -m streamer.cli.reference docs/commands.md

``tests/test_command_reference.py`` fails while the committed file differs. New commands
are found by walking the app, so nothing here needs to change when one is added.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from streamer.cli.main import command_tree

WIDTH = 88
HEADER = """# Command reference

Generated from the real `--help` output of every command by `make docs`
(`python -m streamer.cli.reference docs/commands.md`); do not edit it by hand. A test
fails while it differs from the code. The options, inputs, outputs and exit statuses are
explained in [integration.md](integration.md) and [operations.md](operations.md).
"""


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    context = click.Context(
        command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH
    )
    return command.get_help(context)


def render() -> str:
    """The whole reference: ``streamer --help``, then each command's, sorted by name."""
    root = command_tree()
    root_context = click.Context(
        root, info_name="streamer", terminal_width=WIDTH, max_content_width=WIDTH
    )
    parts = [HEADER, "## streamer\n", "```\n" + _help(root, "streamer", None) + "\n```\n"]
    for name in sorted(root.commands):
        command = root.commands[name]
        parts.append(f"## streamer {name}\n")
        parts.append("```\n" + _help(command, name, root_context) + "\n```\n")
    return "\n".join(parts)


def main(arguments: list[str]) -> int:
    if len(arguments) != 1:
        print("usage: python -m streamer.cli.reference FILE", file=sys.stderr)
        return 2
    Path(arguments[0]).write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

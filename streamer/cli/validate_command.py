"""``streamer validate``: check a bundle folder as a consumer would."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.cli.app import CommandFailed, app
from streamer.framework.errors.types import ExitStatus


@app.command("validate")
def validate_command(
    directory: Path = typer.Argument(..., metavar="DIR", help="The bundle folder."),
) -> None:
    """Check the bundle in DIR: one line per problem on stderr and exit status 3, or a
    one-line JSON summary on stdout."""
    api.require_standard_output()
    report = api.validate_bundle(directory)
    if not report.valid:
        raise CommandFailed(report.problems, ExitStatus.INVALID_INPUT)
    summary = {"status": "valid", "document_id": report.document_id, "files": len(report.files)}
    typer.echo(orjson.dumps(summary).decode("utf-8"))

"""``streamer schema``: print a published JSON Schema, or list them."""

from __future__ import annotations

import sys

import typer

from streamer import api
from streamer.cli.app import app
from streamer.framework.errors import ConfigurationError


@app.command("schema")
def schema_command(
    schema_id: str | None = typer.Argument(
        None, metavar="SCHEMA_ID", help="e.g. notarius.source.evidence_context"
    ),
    list_: bool = typer.Option(False, "--list", help="Name every schema, one a line."),
) -> None:
    """Print the JSON Schema (draft 2020-12) of SCHEMA_ID, or with --list name them all."""
    api.require_standard_output()
    if list_ == (schema_id is not None):
        raise ConfigurationError(
            "give either SCHEMA_ID or --list", hint="see 'streamer schema --help'"
        )
    if list_:
        typer.echo("\n".join(api.schema_ids()))
        return
    assert schema_id is not None
    sys.stdout.buffer.write(api.schema(schema_id))

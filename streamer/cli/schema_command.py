"""``streamer schema``: print a published JSON Schema, or list them."""

from __future__ import annotations

import sys

import typer

from streamer import api
from streamer.cli.app import app
from streamer.framework.errors.types import ConfigurationError


@app.command("schema")
def schema_command(
    schema_id: str | None = typer.Argument(
        None,
        metavar="SCHEMA",
        help="A schema's ID (notarius.source.evidence_context) or its name, as an index "
        "prints it (notarius_dnd_spell_casts_v1).",
    ),
    list_: bool = typer.Option(False, "--list", help="Name every schema, one a line."),
) -> None:
    """Print the JSON Schema (draft 2020-12) of SCHEMA, or with --list name them all."""
    api.require_standard_output()
    if list_ == (schema_id is not None):
        raise ConfigurationError(
            "give either SCHEMA or --list", hint="see 'streamer schema --help'"
        )
    if list_:
        typer.echo("\n".join(api.schema_ids()))
        return
    assert schema_id is not None
    sys.stdout.buffer.write(api.schema(schema_id))

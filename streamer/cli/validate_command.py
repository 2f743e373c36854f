"""``streamer validate``: check a bundle folder as a consumer would."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.cli.app import CommandFailed, app
from streamer.framework.errors.types import ExitStatus
from streamer.validation.review import ARTIFACT_KIND as REVIEW_KIND
from streamer.validation.review import SUFFIX as REVIEW_SUFFIX
from streamer.validation.review import read_review


@app.command("validate")
def validate_command(
    directory: Path = typer.Argument(
        ...,
        metavar="PATH",
        help="The bundle folder, a campaign registry (campaign.registry.json) or a review "
        "(BUNDLE.review.json).",
    ),
) -> None:
    """Check the bundle in PATH (or the campaign registry or review PATH, a .json file): one
    line per problem on stderr and exit status 3, or a one-line JSON summary on stdout."""
    api.require_standard_output()
    if directory.name.endswith(REVIEW_SUFFIX) and directory.is_file():
        review = read_review(directory, "validate")
        verdicts = [review.rejected(key) for key in review.ordered()]
        described = {
            "status": "valid",
            "artifact_kind": REVIEW_KIND,
            "document_id": review.document_id,
            "accepted": verdicts.count(False),
            "rejected": verdicts.count(True),
        }
        typer.echo(orjson.dumps(described).decode("utf-8"))
        return
    if directory.suffix == ".json" and directory.is_file():
        checked = api.validate_registry(directory)
        if not checked.valid or checked.registry is None:
            raise CommandFailed(checked.problems, ExitStatus.INVALID_INPUT)
        registry = checked.registry
        described = {
            "status": "valid",
            "artifact_kind": registry.artifact_kind,
            "sessions": len(registry.sessions),
            "entries": len(registry.entries),
            "casters": len(registry.casters),
        }
        typer.echo(orjson.dumps(described).decode("utf-8"))
        return
    report = api.validate_bundle(directory)
    if not report.valid:
        raise CommandFailed(report.problems, ExitStatus.INVALID_INPUT)
    summary = {"status": "valid", "document_id": report.document_id, "files": len(report.files)}
    typer.echo(orjson.dumps(summary).decode("utf-8"))

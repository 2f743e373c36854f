"""``streamer eval``: how good are a bundle's records? Precision and recall against a
reference, per lane; a campaign over a batch output folder; a reference from a bundle.

Exit status 5 (``ExitStatus.BELOW_FLOOR``) when a lane's figure is below
``--min-precision`` or ``--min-recall``: the table or JSON is printed first, then one
error line per figure below its floor."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer

from streamer import api
from streamer.api.review_scores import is_review, review_scores
from streamer.cli.app import CommandFailed, app
from streamer.evaluation.gate import Floors, parse_floors
from streamer.framework.errors.types import ConfigurationError, ExitStatus

CAMPAIGN_MARKER = "batch.jsonl"  # a streamer batch output folder holds it


@app.command("eval")
def eval_command(
    bundle: Path | None = typer.Argument(
        None,
        metavar="[BUNDLE]",
        help="The bundle folder, or the --output-dir of streamer batch (a campaign).",
    ),
    reference: Path | None = typer.Argument(
        None,
        metavar="[REFERENCE]",
        help="The reference file (schema notarius.evaluation.reference), or a game master's "
        "review (notarius.review: precision over the reviewed records), or for a campaign "
        "the folder of references, one a session.",
    ),
    json_: bool = typer.Option(
        False,
        "--json",
        help="Print JSON (figures and, per record, "
        "matched / missing / spurious with unit IDs) rather than the table.",
    ),
    tolerance: int = typer.Option(
        api.DEFAULT_TOLERANCE,
        "--tolerance",
        metavar="UNITS",
        help="How many units a record's evidence may lie from the reference's.",
    ),
    min_precision: list[str] = typer.Option(
        [],
        "--min-precision",
        metavar="[LANE=]VALUE",
        help="Exit status 5 when a lane's precision is below VALUE (0 to 1): every lane, or "
        "LANE=VALUE for one; repeatable.",
    ),
    min_recall: list[str] = typer.Option(
        [],
        "--min-recall",
        metavar="[LANE=]VALUE",
        help="The same for recall.",
    ),
    source: Path | None = typer.Option(
        None,
        "--source",
        help="The bundle's source document (default: BUNDLE.work/source.jsonl, which "
        "streamer run keeps); not with a campaign.",
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="A glossary: its names and aliases canonicalize both sides' names.",
    ),
    reference_from: Path | None = typer.Option(
        None,
        "--reference-from",
        metavar="BUNDLE",
        help="Write BUNDLE's records as a reference to --output (a start for labelling).",
    ),
    output: str | None = typer.Option(
        None, "--output", help="With --reference-from: the reference file to write, or -."
    ),
) -> None:
    """Score BUNDLE's records against REFERENCE, per lane: expected, published, matched,
    precision, recall, F1 and the share of matched records whose evidence overlaps the
    reference's (docs/evaluation.md)."""
    api.require_standard_output()
    if reference_from is not None:
        if bundle is not None or reference is not None or output is None:
            raise ConfigurationError(
                "--reference-from takes --output and no BUNDLE or REFERENCE",
                hint="streamer eval --reference-from out/session --output reference.json",
            )
        typer.echo(orjson.dumps(api.reference_from(reference_from, output)).decode())
        return
    if bundle is None or reference is None or output is not None:
        raise ConfigurationError(
            "give a BUNDLE and a REFERENCE (--output goes with --reference-from)",
            hint="streamer eval --help",
        )
    if reference.is_file() and is_review(reference):
        if min_precision or min_recall or source is not None or glossary is not None:
            raise ConfigurationError(
                "a review as REFERENCE takes no floors, --source or --glossary",
                hint="docs/evaluation.md: the game master's review",
            )
        scores = review_scores(bundle, reference)
        typer.echo(orjson.dumps(scores.to_json()).decode() if json_ else scores.table(), nl=json_)
        return
    floors = Floors(
        parse_floors("--min-precision", min_precision), parse_floors("--min-recall", min_recall)
    )
    if (bundle / CAMPAIGN_MARKER).is_file() and reference.is_dir():
        if source is not None:
            raise ConfigurationError(
                "--source names one bundle's source: a campaign reads each session's own",
            )
        result: api.EvaluationResult | api.CampaignEvaluation = api.evaluate_campaign(
            bundle, reference, glossary=glossary, tolerance=tolerance
        )
    else:
        result = api.evaluate(
            bundle, reference, source=source, glossary=glossary, tolerance=tolerance
        )
    rows = [(row.lane_id, row.counts) for row in result.rows()]
    unknown = sorted(floors.lanes() - {lane for lane, _ in rows})
    if unknown:
        raise ConfigurationError(
            f"a floor names lane {unknown[0]}, which the reference does not score"
        )
    if json_:
        typer.echo(orjson.dumps(result.to_json()).decode())
    else:
        typer.echo(result.table().text(), nl=False)
    below = floors.below(rows)
    if below:
        raise CommandFailed(below, ExitStatus.BELOW_FLOOR)

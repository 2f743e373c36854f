"""``streamer report``: the HTML page a person reads, built from a valid bundle."""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import msgspec
import orjson

from streamer.api.config import default_registry
from streamer.api.output_destinations import WriteTarget, check_output_destination, publish_to
from streamer.api.reviews import load_review, page_review
from streamer.api.validation import validate_bundle
from streamer.framework.audience import AUDIENCES, GAME_MASTER, AudienceView
from streamer.framework.errors.safe_text import quoted, shown_path
from streamer.framework.errors.types import ConfigurationError, InputError
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.framework.party import Party
from streamer.framework.secrets import Secrets
from streamer.framework.source.accepted import AcceptedSource
from streamer.normalization.glossary import PARTY, load_glossary, party_of
from streamer.output.bundle_documents import INDEX_FILE
from streamer.report import ReportSummary, RunNotes, write_report
from streamer.report.audience_view import MarkedRows, WithheldRows
from streamer.report.evidence_rows import EvidenceRows

Rejections = Mapping[str, Mapping[str, int]]


class _RejectionLine(msgspec.Struct):
    lane_id: str
    reason: str


def rejection_counts(path: str | os.PathLike[str]) -> dict[str, dict[str, int]]:
    """Per lane, the count of rejected candidates by reason, from a ``rejections.jsonl``
    (``streamer normalize``'s); only the lane and the reason of each line are read."""
    file = Path(path)
    counts: dict[str, Counter[str]] = {}
    decoder = msgspec.json.Decoder(_RejectionLine)
    try:
        with file.open("rb") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    rejection = decoder.decode(line)
                except msgspec.DecodeError:
                    raise InputError(
                        f"--rejections {shown_path(file)} line {number}: not a rejection line",
                        hint="give the rejections.jsonl that streamer normalize wrote",
                    ) from None
                counts.setdefault(rejection.lane_id, Counter())[rejection.reason] += 1
    except FileNotFoundError:
        raise ConfigurationError(
            f"--rejections {shown_path(file)} does not exist",
            hint="give the rejections.jsonl that streamer normalize wrote",
        ) from None
    except IsADirectoryError:
        raise ConfigurationError(
            f"--rejections {shown_path(file)} is a folder, not a file"
        ) from None
    return {lane: dict(reasons) for lane, reasons in counts.items()}


def _glossary_sections(registry: ArtifactKindRegistry) -> set[str]:
    return {
        spec.glossary_section
        for kind in registry
        if (spec := kind.normalization) is not None and spec.glossary_section is not None
    }


def glossary_party(
    path: str | os.PathLike[str], registry: ArtifactKindRegistry, session: str | None = None
) -> Party:
    """The glossary's ``party`` in ``session`` (a document ID; empty without one)."""
    return party_of(load_glossary(Path(path), _glossary_sections(registry)), session)


def audience_view(
    audience: str,
    glossary: str | os.PathLike[str] | None,
    registry: ArtifactKindRegistry,
    game_master_lanes: Collection[str] = (),
) -> AudienceView:
    """The view of ``audience`` (``game-master`` or ``players``): the glossary's secrets
    (none without one) and the lanes marked as the game master's."""
    if audience not in AUDIENCES:
        raise ConfigurationError(
            f"--audience {quoted(audience)} is not an audience", hint="game-master or players"
        )
    terms = (
        None if glossary is None else load_glossary(Path(glossary), _glossary_sections(registry))
    )
    return AudienceView.of(audience, terms.secrets if terms else Secrets(), game_master_lanes)


def _bundle_session(folder: Path) -> str:
    """The session of a (valid) bundle: its source document's ID."""
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    return str(index["source"]["document_id"])


def bundle_party(folder: Path, registry: ArtifactKindRegistry) -> Party:
    """The party of a (valid) bundle's party-roster lane (a kind whose records come from
    the glossary's ``party``); empty when none is published."""
    index = orjson.loads((folder / INDEX_FILE).read_bytes())
    pairs: list[tuple[str, str]] = []
    for descriptor in index["lanes"]:
        name = descriptor["artifact_kind"]
        if name not in registry:
            continue
        spec = registry.get(name, where=descriptor["file"]).normalization
        if spec is None or spec.glossary_section != PARTY:
            continue
        records: list[Any] = orjson.loads((folder / descriptor["file"]).read_bytes())["records"]
        where = f"{descriptor['file']}: $.records"
        pairs.extend(Party.of_records(records, where, InputError).items())
    return Party(pairs)


def _positions_in(
    folder: Path, source: str | os.PathLike[str] | AcceptedSource | None
) -> Callable[[set[str]], dict[str, int] | None]:
    """How the page finds the cited units' places in the session: in ``source`` (which must
    be the bundle's source document; ``streamer run``'s accepted one, whose index already
    knows them when normalize ran, else read without checking it again), else in the copy
    ``streamer run`` keeps in its work folder when it is the bundle's, else nowhere."""

    def positions(wanted: set[str]) -> dict[str, int] | None:
        if isinstance(source, AcceptedSource):
            known = {} if source.index is None else source.index.positions
            if wanted.issubset(known):
                return {unit: known[unit] for unit in wanted}
        # a source to read: the evaluation's reader (imported here, not by every run)
        from streamer.api.evaluation import unit_positions, work_source

        if isinstance(source, AcceptedSource):
            return unit_positions(source, wanted)[0]
        path = Path(source) if source is not None else work_source(folder)
        if source is None and not path.is_file():
            return None
        expected = orjson.loads((folder / INDEX_FILE).read_bytes())["source"]["semantic_digest"]
        found, digest = unit_positions(path, wanted)
        if digest == expected:
            return found
        if source is None:
            return None  # another document's copy: the page does without
        raise InputError(
            f"--source {shown_path(source)} is not the bundle's source document (its semantic "
            "digest differs)",
            hint="give the source document the bundle was made from",
        )

    return positions


def report(
    bundle_dir: str | os.PathLike[str],
    *,
    output: WriteTarget = "-",
    title: str | None = None,
    glossary: str | os.PathLike[str] | None = None,
    rejections: str | os.PathLike[str] | Rejections | None = None,
    registry: ArtifactKindRegistry | None = None,
    run: RunNotes | None = None,
    source: str | os.PathLike[str] | AcceptedSource | None = None,
    review: str | os.PathLike[str] | None = None,
    canon: bool = False,
    audience: str = GAME_MASTER,
    game_master_lanes: Collection[str] = (),
) -> ReportSummary:
    """Write the report of the bundle in ``bundle_dir`` to ``output`` (a path, published
    atomically and owner-only, ``-`` or a binary stream).

    The speakers' characters come from ``glossary``'s ``party`` when given, else from the
    bundle's party-roster lane. ``rejections`` (a ``rejections.jsonl`` path, or counts by
    lane and reason) are shown per lane as counts by reason.

    The bundle is checked first as ``validate_bundle`` checks it; an invalid bundle raises
    ``InputError`` (exit status 3) naming its first problem, and nothing is written. The
    page's evidence is what that check read of the evidence document (one reading).
    ``registry``: the kinds of its lanes (default: every installed kind, as for ``bundle``).
    ``review``: the game master's review file (default: ``<bundle>.review.json`` beside
    the bundle, when it is there; ``api.reviews``): rejected records struck through, and
    with ``canon`` the records not reviewed marked; the summary's ``stale_reviews`` names
    the reviewed IDs no longer in the bundle.
    ``audience``: ``players`` writes the page the players may see (``framework.audience``:
    the glossary's secrets and ``game_master_lanes`` left out); default: the game master's.
    """
    if isinstance(output, (str, os.PathLike)):
        check_output_destination(output)
    folder = Path(bundle_dir)
    registry = registry or default_registry()
    if glossary is not None:
        glossary_party(glossary, registry)  # a bad glossary fails before the bundle is read
    view = audience_view(audience, glossary, registry, game_master_lanes)
    counts = (
        rejection_counts(rejections) if isinstance(rejections, (str, os.PathLike)) else rejections
    )
    # what validation reads of the evidence, for the page
    evidence = (
        WithheldRows(view) if view.players else MarkedRows(view) if view.secrets else EvidenceRows()
    )
    try:
        checked = validate_bundle(folder, registry, evidence)
        if not checked.valid:
            count = len(checked.problems)
            problems = f"{count} problem{'s' if count > 1 else ''}"
            raise InputError(
                f"bundle {shown_path(folder)} is not valid ({problems}): {checked.problems[0]}",
                hint=f"'streamer validate {shown_path(folder)}' lists every problem",
            )
        shown_review = page_review(folder, review, registry, canon=canon)
        if view.players:  # rejected records are left out; the marks and notes are the GM's
            loaded = load_review(folder, review)
            if loaded is not None:
                view = dataclasses.replace(view, rejected=loaded.rejected_ids())
            shown_review = None
        if glossary is None:
            party = bundle_party(folder, registry)
        else:  # the glossary's party in the bundle's session (the first: checked early)
            party = glossary_party(glossary, registry, _bundle_session(folder))
        summary: list[ReportSummary] = []
        publish_to(
            output,
            lambda out: summary.append(
                write_report(
                    folder,
                    registry,
                    out,
                    title=title,
                    party=party,
                    rejections=counts,
                    evidence=evidence,
                    run=run,
                    positions=_positions_in(folder, source),
                    review=shown_review,
                    view=view if view.players or view.secrets else None,
                )
            ),
        )
    finally:
        evidence.close()
    stale = () if shown_review is None else tuple(shown_review["stale"])
    return dataclasses.replace(summary[0], stale_reviews=stale)

"""``streamer report``: the HTML page a person reads, built from a valid bundle."""

from __future__ import annotations

import os
from pathlib import Path

from streamer.api.config import default_registry
from streamer.api.outputs import WriteTarget, check_output_destination, publish_to
from streamer.api.validation import validate_bundle
from streamer.framework.errors import InputError
from streamer.framework.kinds.registry import ArtifactKindRegistry
from streamer.report import ReportSummary, write_report


def report(
    bundle_dir: str | os.PathLike[str],
    *,
    output: WriteTarget = "-",
    title: str | None = None,
    registry: ArtifactKindRegistry | None = None,
) -> ReportSummary:
    """Write the report of the bundle in ``bundle_dir`` to ``output`` (a path, published
    atomically and owner-only, ``-`` or a binary stream).

    The bundle is checked first as ``validate_bundle`` checks it; an invalid bundle raises
    ``InputError`` (exit status 3) naming its first problem, and nothing is written.
    ``registry``: the kinds of its lanes (default: every installed kind, as for ``bundle``).
    """
    registry = registry or default_registry()
    if isinstance(output, (str, os.PathLike)):
        check_output_destination(output)
    folder = Path(bundle_dir)
    checked = validate_bundle(folder, registry)
    if not checked.valid:
        count = len(checked.problems)
        raise InputError(
            f"bundle {folder.name} is not valid ({count} problem{'s' if count > 1 else ''}): "
            f"{checked.problems[0]}",
            hint=f"'streamer validate {folder.name}' lists every problem",
        )
    summary: list[ReportSummary] = []
    publish_to(output, lambda out: summary.append(write_report(folder, registry, out, title=title)))
    return summary[0]

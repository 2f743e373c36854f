"""Checking a published bundle as a consumer would, with nothing but the bundle.

One checker per document, each in its own module:

* ``index_check``: ``index.json`` against its schema; every file it describes exists, no
  other file is present, and each descriptor is sound (``bundle_check`` runs them all);
* ``lane_payload``: each lane payload against the schema and descriptor that describe it,
  and, when the evidence context is published, against it (in both directions);
* ``chunk_map``: chunk IDs in sequence, sizes as its chunking says; the source positions
  it fixes;
* ``evidence_check``: the evidence context, read as a stream (it may be larger than memory),
  its units decoded by the source unit's declaration.

Every problem is one content-safe line naming the (quoted) bundle file: JSON paths, lane
and unit IDs, never transcript text or record values.

    from streamer.validation import validate
    report = validate(Path("out/session"), registry)
    report.valid, report.problems
"""

from streamer.validation.bundle_check import validate
from streamer.validation.report import BundleReport

__all__ = ["BundleReport", "validate"]

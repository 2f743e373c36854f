"""Checking a published bundle as a consumer would, with nothing but the bundle.

One checker per document, each in its own module, run in order by ``bundle_check``:

* ``index_check``: ``index.json`` against its schema, each descriptor sound; every file it
  describes exists and no other file is present (``bundle_files``);
* ``lane_payload``: each lane payload against its schema, descriptor and artifact kind,
  and, when the evidence context is published, against it (in both directions);
* ``chunk_map``: chunk IDs in sequence, sizes as its chunking says; the source positions
  it fixes. Its entries are streamed;
* ``evidence_check``: the evidence context, read as a stream (it may be larger than
  memory): ``evidence_shape`` (where its units and references are), ``evidence_units``
  (decoded by the source unit's declaration, and their rules), ``evidence_contexts`` (the
  rules of a context), ``evidence_repeats`` (repeated unit IDs, confirmed).

The parts they share: ``framework.json.events`` (ijson, items built in C, runs of units
decoded at once by msgspec; shared with the importers and the report), ``skeleton`` (the
small rest of a large document), ``schema_rules`` (jsonschema, for the small documents and
to name what a struct refused), ``repeated_ids``, ``window_union``, ``report``.

Every problem is one content-safe line naming the (quoted) bundle file: JSON paths, lane
and unit IDs, never transcript text or record values. ``docs/bundle.md`` lists the rules.

    from streamer.validation import validate
    report = validate(Path("out/session"), registry)
    report.valid, report.problems
"""

from streamer.validation.bundle_check import validate
from streamer.validation.bundle_report import BundleReport

__all__ = ["BundleReport", "validate"]

"""The evidence-context document (``evidence-context.json``), written from a projection."""

from __future__ import annotations

from typing import IO

import orjson

from streamer.framework.evidence.projector import ProjectedEvidence
from streamer.framework.kinds.registry import SchemaIdentity

FILE_NAME = "evidence-context.json"
DESCRIPTOR = "evidence_context"
ARTIFACT_KIND = "source/evidence-context"
MEDIA_TYPE = "application/json"
SCHEMA = SchemaIdentity(
    "notarius.source.evidence_context", "notarius_source_evidence_context_v1", "v1"
)


def write_evidence_context(projection: ProjectedEvidence, out: IO[bytes]) -> None:
    """Write the compact, deterministic document: header, then each context."""
    dumps = orjson.dumps
    identity = projection.identity
    header = dumps(
        {
            "artifact_kind": ARTIFACT_KIND,
            "schema": SCHEMA.to_json(),
            "source": {
                "document_id": identity.document_id,
                "semantic_digest": identity.semantic_digest,
            },
            "window_units": projection.window_units,
            "lanes": list(projection.lanes),
        }
    )
    out.write(header[:-1] + b',"contexts":[')
    for index, context in enumerate(projection.contexts):
        head = dumps(
            {
                "start_unit_id": context.start_unit_id,
                "end_unit_id": context.end_unit_id,
                "references": [
                    {"source_ref": reference.to_json(), "lane_ids": list(lane_ids)}
                    for reference, lane_ids in context.references
                ],
            }
        )
        out.write((b"," if index else b"") + head[:-1] + b',"units":[')
        projection.copy_units(context, out)
        out.write(b"]}")
    out.write(b"]}\n")


def descriptor() -> dict[str, object]:
    """The ``evidence_context`` member of ``index.json``."""
    return {
        "file": FILE_NAME,
        "artifact_kind": ARTIFACT_KIND,
        "media_type": MEDIA_TYPE,
        "schema": SCHEMA.to_json(),
    }

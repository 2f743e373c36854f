"""The documents of a JSON bundle and their layout.

A bundle folder holds:

* ``index.json``: the table of contents, in this member order::

    {"artifact_kind": "output/index",
     "schema": {"id": "notarius.output.index", "name": "notarius_output_index_v1",
                "version": "v1"},
     "source": {"document_id": ..., "semantic_digest": ...},
     "lanes": [lane descriptors, sorted by lane_id],
     "chunk_map": {chunk-map descriptor},
     "evidence_context": {evidence-context descriptor}}   # only when evidence is enabled

  A descriptor is ``{"file", "artifact_kind", "media_type", "schema"}``; a lane descriptor
  adds ``"lane_id"`` and ``"record_count"``, and ``"normalization": {"support": "off"}``
  when its records were normalized with the support check off (index v1, revision 1.1).
  ``file`` is relative to the bundle folder.
* ``lanes/<lane_id>.json``: each normalized lane payload of the run, canonical.
* ``chunk-map.json``: the extraction chunks, by unit ID (no transcript text).
* ``evidence-context.json``: only when evidence publication is enabled.

Every document is compact JSON with one trailing newline, byte-identical for identical
inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from streamer.framework.evidence.projector import ProjectedEvidence
from streamer.framework.json.canonical import compact
from streamer.framework.kinds.lane_outputs import LaneOutput
from streamer.framework.kinds.registry import SchemaIdentity
from streamer.framework.source.reader import DocumentIdentity
from streamer.output import evidence_context
from streamer.output.bundle_publication import StagedBundle
from streamer.output.chunk_map_tap import ChunkBoundsTap

MEDIA_TYPE = evidence_context.MEDIA_TYPE
INDEX_FILE = "index.json"
INDEX_KIND = "output/index"
INDEX_SCHEMA = SchemaIdentity.for_kind(INDEX_KIND)
CHUNK_MAP_FILE = "chunk-map.json"
CHUNK_MAP_KIND = "source/chunk-map"
CHUNK_MAP_SCHEMA = SchemaIdentity.for_kind(CHUNK_MAP_KIND)
LANES_FOLDER = "lanes"


def lane_file(lane_id: str) -> str:
    return f"{LANES_FOLDER}/{lane_id}.json"


def source_json(identity: DocumentIdentity) -> dict[str, str]:
    return {"document_id": identity.document_id, "semantic_digest": identity.semantic_digest}


def descriptor(file: str, artifact_kind: str, schema: SchemaIdentity) -> dict[str, Any]:
    return {
        "file": file,
        "artifact_kind": artifact_kind,
        "media_type": MEDIA_TYPE,
        "schema": schema.to_json(),
    }


def lane_descriptor(output: LaneOutput[Any]) -> dict[str, Any]:
    described = {
        **descriptor(lane_file(output.lane_id), output.kind.name, output.kind.schema),
        "lane_id": output.lane_id,
        "record_count": len(output.records),
    }
    if output.support != "strict":
        described["normalization"] = {"support": output.support}
    return described


def index_document(
    identity: DocumentIdentity, outputs: Sequence[LaneOutput[Any]], *, evidence: bool
) -> dict[str, Any]:
    index: dict[str, Any] = {
        "artifact_kind": INDEX_KIND,
        "schema": INDEX_SCHEMA.to_json(),
        "source": source_json(identity),
        "lanes": [lane_descriptor(output) for output in outputs],
        "chunk_map": descriptor(CHUNK_MAP_FILE, CHUNK_MAP_KIND, CHUNK_MAP_SCHEMA),
    }
    if evidence:
        index[evidence_context.DESCRIPTOR] = evidence_context.descriptor()
    return index


def write_chunk_map(identity: DocumentIdentity, chunks: ChunkBoundsTap, out: IO[bytes]) -> None:
    """Write ``chunk-map.json``: compact, members in order, the chunks copied from the
    tap's spool (they are never all held in memory)."""
    head = compact(
        {
            "artifact_kind": CHUNK_MAP_KIND,
            "schema": CHUNK_MAP_SCHEMA.to_json(),
            "source": source_json(identity),
            "chunking": {"max_units": chunks.max_units, "overlap_units": chunks.overlap_units},
        }
    )
    out.write(head[:-1] + b',"chunks":[')
    chunks.copy_chunks(out)
    out.write(b"]}\n")


def _document(value: Any) -> bytes:
    return compact(value) + b"\n"


def write_bundle(
    staged: StagedBundle,
    identity: DocumentIdentity,
    outputs: Sequence[LaneOutput[Any]],
    chunks: ChunkBoundsTap,
    projection: ProjectedEvidence | None,
) -> None:
    """Write every document of the bundle into ``staged``; ``projection`` is ``None`` when
    evidence publication is disabled."""
    ordered = sorted(outputs, key=lambda output: output.lane_id)
    for output in ordered:
        staged.write(lane_file(output.lane_id), _document(output.to_json()))
    with staged.create(CHUNK_MAP_FILE) as out:
        write_chunk_map(identity, chunks, out)
    if projection is not None:
        with staged.create(evidence_context.FILE_NAME) as out:
            evidence_context.write_evidence_context(projection, out)
    index = index_document(identity, ordered, evidence=projection is not None)
    staged.write(INDEX_FILE, _document(index))

"""A narrative outline of a streamer bundle: python outline.py BUNDLE_DIR (stdlib only)."""

import json
import sys
from pathlib import Path

bundle = Path(sys.argv[1])
index = json.loads((bundle / "index.json").read_text(encoding="utf-8"))
descriptor = index.get("evidence_context")  # present exactly when evidence is published
if descriptor is None:
    sys.exit("no evidence context in this bundle (evidence publication is off)")
schema = descriptor["schema"]
if (schema["id"], schema["version"]) != ("notarius.source.evidence_context", "v1"):
    sys.exit(f"unsupported evidence context: {schema['id']} {schema['version']}")
evidence = json.loads((bundle / descriptor["file"]).read_text(encoding="utf-8"))

print(f"# {evidence['source']['document_id']} (> cited directly, the rest is context)")
for number, context in enumerate(evidence["contexts"], 1):
    units = context["units"]
    position = {unit["unit_id"]: i for i, unit in enumerate(units)}
    cited: set[int] = set()
    print(f"\n## Context {number}: {context['start_unit_id']}..{context['end_unit_id']}")
    for reference in context["references"]:
        cite = reference["source_ref"]
        start, end = cite["start_unit_id"], cite["end_unit_id"]
        cited.update(range(position[start], position[end] + 1))
        print(f"- {start}..{end} cited by {', '.join(reference['lane_ids'])}")
    for i, unit in enumerate(units):
        speaker = unit.get("metadata", {}).get("speaker")
        line = f"{speaker}: {unit['text']}" if speaker else unit["text"]
        print(f"{'>' if i in cited else ' '} [{unit['unit_id']}] {line}")

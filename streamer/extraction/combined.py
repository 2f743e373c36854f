"""One request for every model lane of a chunk (``pipeline.extraction.requests: combined``).

Every combined request of a run asks the same questions about other units, so the
questions come first, where a server's prompt cache keeps them (llama.cpp's
``cache_prompt``, llama-cpp-python's last prompt, vLLM's prefix caching): the system
message is the lanes' preamble, then every lane's instructions in turn, each under its
lane ID; the user message is the chunk's units (as a lane's request lays them out), then
one short constant line asking for one JSON object, one member per lane ID holding that
lane's own ``{"records": [...]}``. A server that keeps the previous prompt evaluates the
questions once, then only each chunk's units and that line (``LAYOUT`` names this layout
in the cache key: an answer to another layout is never reused). In a mode with a schema,
the schema is that object: one member per lane, each the lane's own response schema
(their ``$defs`` merged, renamed where two kinds define one name differently); in
``json_object`` and ``none`` the instructions alone say it. ``max_tokens`` is the sum of
the lanes' own.

The answer is split back lane by lane (``split_answer``): each member is validated as that
lane's answer would be; a lane whose member is missing or invalid gets the problem
instead, and is asked again alone (in the per-lane layout). Of an answer cut at
``max_tokens``, the members written whole before the cut are read
(``cut_answer.complete_members``); the lanes of the others are cut. Of an answer stopped at
a repeated record (``stop_repeats``), the lanes it never reached are asked again together
with the same messages but the last line (``REST_INTRO``, naming them), so that the
server's prompt cache still holds the questions and the units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from streamer.extraction.cut_answer import complete_members
from streamer.extraction.requests import QUESTION_SEPARATOR, UNITS_HEADER, schema_format
from streamer.extraction.response_schema import response_schema
from streamer.extraction.responses import TRUNCATED, InvalidAnswer, decode_answer, parse_records
from streamer.framework.kinds.extraction_spec import Prompt, ShownUnit
from streamer.framework.kinds.registry import ArtifactKind

COMBINED_INTRO = (
    "Answer each question above about these units. Answer with one JSON object, one member "
    "per question, named by the question's ID, each member the answer to that question in "
    "the shape it asks."
)
# the line that ends a request asking again only the questions an answer never reached
# (stopped at a repeated record, or cut at ``max_tokens``): the system message is the same,
# so the server's prompt cache still holds the questions and the chunk's units
REST_INTRO = (
    "Answer only questions {lane_ids} above about these units. Answer with one JSON object, "
    "one member per question named here, named by the question's ID, each member the answer "
    "to that question in the shape it asks."
)
LAYOUT = "questions-first"  # in the cache key of a combined answer (``combined_run``)
QUESTION_HEADER = "Question {lane_id}:\n"
SCHEMA_NAME = "lanes"


@dataclass(frozen=True)
class Part:
    """One lane of a combined request: its ID, kind and prompt."""

    lane_id: str
    kind: ArtifactKind[Any]
    prompt: Prompt


def combined_messages(
    parts: Sequence[Part], units: Sequence[ShownUnit], rest: Sequence[Part] | None = None
) -> list[dict[str, str]]:
    """The questions first, then the chunk: the system message is the lanes' preamble
    (their distinct preambles, in order, when they differ) and every lane's question in
    turn; the user message the units and ``COMBINED_INTRO``, or with ``rest`` (some of
    ``parts``) ``REST_INTRO`` naming them."""
    questions = QUESTION_SEPARATOR.join(
        QUESTION_HEADER.format(lane_id=part.lane_id) + part.prompt.instructions for part in parts
    )
    preambles = dict.fromkeys(part.prompt.preamble for part in parts if part.prompt.preamble)
    system = QUESTION_SEPARATOR.join([*preambles, questions])
    lines = "\n".join(unit.line() for unit in units)
    intro = (
        COMBINED_INTRO
        if rest is None
        else REST_INTRO.format(lane_ids=", ".join(part.lane_id for part in rest))
    )
    user = UNITS_HEADER + lines + QUESTION_SEPARATOR + intro
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def combined_schema(parts: Sequence[Part], units: Sequence[str] = ()) -> dict[str, Any]:
    """``{lane_id: {"records": [...]}, ...}``, every lane's member required; ``units``: the
    chunk's unit IDs (``response_schema``)."""
    defs: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    for part in parts:
        schema = response_schema(part.kind, units)
        own = schema.pop("$defs", {})
        renames = {
            name: name if defs.get(name, value) == value else f"{part.lane_id}.{name}"
            for name, value in own.items()
        }
        for name, value in own.items():
            defs[renames[name]] = _renamed(value, renames)
        properties[part.lane_id] = _renamed(schema, renames)
    combined: dict[str, Any] = {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }
    if defs:
        combined["$defs"] = defs
    return combined


def _renamed(schema: Any, renames: dict[str, str]) -> Any:
    """``schema`` with its ``#/$defs/`` references renamed."""
    if isinstance(schema, list):
        return [_renamed(item, renames) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _renamed(value, renames) for key, value in schema.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        out["$ref"] = "#/$defs/" + renames.get(ref[len("#/$defs/") :], ref[len("#/$defs/") :])
    return out


def combined_format(
    parts: Sequence[Part], mode: str, units: Sequence[str] = ()
) -> dict[str, Any] | None:
    """The ``response_format`` of a combined request in ``mode`` (as
    ``requests.response_format`` for one lane, ``units`` the chunk's unit IDs)."""
    return schema_format(SCHEMA_NAME, lambda: combined_schema(parts, units), mode)


def split_answer(
    parts: Sequence[Part], content: str | None, finish_reason: str | None
) -> dict[str, list[dict[str, Any]] | InvalidAnswer]:
    """Each lane's records, or what is wrong with its part (a content-safe path and rule,
    under ``$.<lane_id>``)."""

    def every(problem: str) -> dict[str, list[dict[str, Any]] | InvalidAnswer]:
        return {part.lane_id: InvalidAnswer(problem) for part in parts}

    if not content:
        return every(TRUNCATED if finish_reason == "length" else "$ is empty")
    if finish_reason == "length":  # the members written whole before the cut
        data = complete_members(content)
        missing = TRUNCATED
    else:
        try:
            data = decode_answer(content)
        except InvalidAnswer as invalid:
            return every(invalid.problem)
        missing = "$ has no member {lane_id}"
    if type(data) is not dict:
        return every("$ must be an object with one member per question")
    out: dict[str, list[dict[str, Any]] | InvalidAnswer] = {}
    for part in parts:
        if part.lane_id not in data:
            out[part.lane_id] = InvalidAnswer(missing.format(lane_id=part.lane_id))
            continue
        try:
            out[part.lane_id] = parse_records(part.kind, data[part.lane_id])
        except InvalidAnswer as invalid:
            out[part.lane_id] = InvalidAnswer(invalid.problem)
    return out

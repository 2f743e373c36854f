"""A request's schema is its chunk's own (``response_schema(kind, units)``): every answer
the schema admits cites only the chunk's units, holds at most a record per unit and at
most ``CITED_RANGES`` ranges a record; checked by a third-party validator against a
brute-force predicate, for one lane and for a combined request."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from streamer import api
from streamer.domain.dnd.prompts import PREAMBLE
from streamer.extraction.combined import Part, combined_schema
from streamer.extraction.response_schema import (
    CITED_RANGES,
    grammar_schema,
    response_schema,
    strict_schema,
)
from streamer.framework.kinds.extraction_spec import Prompt

KINDS = {kind.name: kind for kind in api.default_registry()}
SPELLS = KINDS["dnd/spell-casts"]
NPCS = KINDS["dnd/npcs"]
CHUNK = ["t0098", "t0099a", "t0100"]
ELSEWHERE = ["t0097", "t0101", "t00100", ""]

reference = st.fixed_dictionaries(
    {
        "start_unit_id": st.sampled_from(CHUNK + ELSEWHERE),
        "end_unit_id": st.sampled_from(CHUNK + ELSEWHERE),
    }
)
spell = st.fixed_dictionaries(
    {
        "spell": st.sampled_from(["Shield", "Fire Bolt"]),
        "caster": st.sampled_from([None, "Vex"]),
        "source_refs": st.lists(reference, max_size=CITED_RANGES + 2),
    }
)
answer = st.fixed_dictionaries({"records": st.lists(spell, max_size=len(CHUNK) + 2)})


def admitted(answer: dict[str, Any]) -> bool:
    """The brute-force reference: what a chunk's answer may be."""
    records = answer["records"]
    return len(records) <= len(CHUNK) and all(
        1 <= len(record["source_refs"]) <= CITED_RANGES
        and all(
            ref["start_unit_id"] in CHUNK and ref["end_unit_id"] in CHUNK
            for ref in record["source_refs"]
        )
        for record in records
    )


@settings(max_examples=300)
@given(answer)
def test_the_grammar_of_a_chunk_admits_exactly_the_answers_citing_its_units(
    answer: dict[str, Any],
) -> None:
    schema = grammar_schema(response_schema(SPELLS, CHUNK))
    assert Draft202012Validator(schema).is_valid(answer) == admitted(answer)


@settings(max_examples=200)
@given(answer)
def test_a_combined_request_bounds_every_lane_as_its_own_request(answer: dict[str, Any]) -> None:
    prompt = Prompt("test/kind@1", "?", PREAMBLE)
    parts = [Part("spells", SPELLS, prompt), Part("npcs", NPCS, prompt)]
    schema = grammar_schema(combined_schema(parts, CHUNK))
    combined = {"spells": answer, "npcs": {"records": []}}
    assert Draft202012Validator(schema).is_valid(combined) == admitted(answer)
    assert list(schema["$defs"]) == ["source_reference"]  # one, shared: the same chunk


def test_strict_mode_keeps_the_chunks_units_and_drops_the_bounds() -> None:
    strict = strict_schema(response_schema(SPELLS, CHUNK))
    unit = strict["$defs"]["source_reference"]["properties"]["start_unit_id"]
    assert unit == {"type": "string", "enum": CHUNK}
    records = strict["properties"]["records"]
    assert (
        "maxItems" not in records
        and "maxItems" not in records["items"]["properties"]["source_refs"]
    )


def test_without_a_chunk_the_schema_is_the_declarations() -> None:
    schema = response_schema(SPELLS)
    assert "maxItems" not in str(schema) and "enum" not in str(schema)
    unit = schema["$defs"]["source_reference"]["properties"]["start_unit_id"]
    assert unit == {"type": "string", "minLength": 1}

"""The request of one chunk: the kind's prompt, the chunk as one line per unit, the
response format; and the follow-up that asks again after an invalid answer.

Sent to ``POST {base_url}/chat/completions`` (OpenAI's Chat Completions, which every
compatible server speaks). The instructions are the system message; the user message is
``UNITS_HEADER`` and one ``[unit_id] speaker: text`` line per unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamer.extraction.response_schema import response_schema, strict_schema
from streamer.framework.kinds.extraction import Prompt, ShownUnit
from streamer.framework.kinds.registry import ArtifactKind

UNITS_HEADER = "Units:\n"
ASK_AGAIN = (
    "That answer was not accepted: {problem}. Answer again, with JSON only, in the shape asked."
)


def fixed_size(prompt: Prompt) -> int:
    """The characters of a request that do not depend on the chunk."""
    return len(prompt.instructions) + len(UNITS_HEADER)


def messages(prompt: Prompt, units: Sequence[ShownUnit]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": prompt.instructions},
        {"role": "user", "content": UNITS_HEADER + "\n".join(unit.line() for unit in units)},
    ]


def ask_again(
    conversation: list[dict[str, str]], answer: str, problem: str
) -> list[dict[str, str]]:
    """The conversation with the invalid answer and a content-safe description of what was
    wrong (a JSON path and a rule, never a value)."""
    return [
        *conversation,
        {"role": "assistant", "content": answer},
        {"role": "user", "content": ASK_AGAIN.format(problem=problem)},
    ]


def response_format(kind: ArtifactKind[Any], structured_output: str) -> dict[str, Any]:
    """``json_schema``: the strict schema of the kind's answer; ``json_object``: JSON only
    (the prompt states the shape)."""
    if structured_output == "json_object":
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": kind.schema.name,
            "strict": True,
            "schema": strict_schema(response_schema(kind)),
        },
    }


def request_body(
    model: str,
    conversation: list[dict[str, str]],
    format_: dict[str, Any],
    temperature: float,
) -> dict[str, Any]:
    return {
        "model": model,
        "messages": conversation,
        "temperature": temperature,
        "response_format": format_,
    }

"""The request of one chunk: the kind's prompt around the chunk's units, the response
format of a structured-output mode, the answer's bound; and the follow-up that asks again
after an invalid answer.

Sent to ``POST {base_url}/chat/completions`` (OpenAI's Chat Completions, which every
compatible server speaks). Chunk first, question last: the system message is the
prompt's ``preamble`` (the same for every lane of a family), the user message is
``UNITS_HEADER``, one ``[unit_id] speaker: text`` line per unit, then the lane's
``instructions`` (its question and answer shape). Everything before the instructions is
the same for every lane of a chunk, so a server with a prompt cache evaluates it once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from streamer.extraction.response_schema import grammar_schema, response_schema, strict_schema
from streamer.framework.kinds.extraction_spec import Prompt, ShownUnit
from streamer.framework.kinds.registry import ArtifactKind

UNITS_HEADER = "Units:\n"
QUESTION_SEPARATOR = "\n\n"
ASK_AGAIN = (
    "That answer was not accepted: {problem}. Answer again, with JSON only, in the shape asked."
)
ASK_SHORTER = (
    "An earlier answer to this question was cut at its length limit: answer with JSON only, "
    "in the shape asked, one record per distinct event, no repetition."
)

# The structured-output modes, in the order ``structured_output: auto`` tries them: OpenAI's
# ``json_schema``; llama-cpp-python's ``{"type": "json_object", "schema": ...}``; JSON only;
# no ``response_format`` at all (the prompt states the shape; every answer is validated
# here whatever the server promised).
MODES = ("json_schema", "json_object_schema", "json_object", "none")


def fixed_size(prompt: Prompt) -> int:
    """The characters of a request that do not depend on the chunk."""
    return (
        len(prompt.preamble)
        + len(UNITS_HEADER)
        + len(QUESTION_SEPARATOR)
        + len(prompt.instructions)
    )


def messages(prompt: Prompt, units: Sequence[ShownUnit]) -> list[dict[str, str]]:
    lines = "\n".join(unit.line() for unit in units)
    user = {
        "role": "user",
        "content": UNITS_HEADER + lines + QUESTION_SEPARATOR + prompt.instructions,
    }
    if not prompt.preamble:
        return [user]
    return [{"role": "system", "content": prompt.preamble}, user]


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


def ask_shorter(conversation: list[dict[str, str]]) -> list[dict[str, str]]:
    """The conversation asked again after an answer cut by ``max_tokens``: the cut answer
    is of no use and is left out; a note follows the question in the same message (so the
    preamble and the units stay a shared prefix)."""
    *before, last = conversation
    return [*before, {**last, "content": last["content"] + QUESTION_SEPARATOR + ASK_SHORTER}]


def response_format(
    kind: ArtifactKind[Any], mode: str, units: Sequence[str] = ()
) -> dict[str, Any] | None:
    """The ``response_format`` of ``mode`` (one of ``MODES``): ``json_schema``, the strict
    schema of the kind's answer; ``json_object_schema``, the same schema (with its
    ``minItems``, ``maxItems`` and ``minLength``, which the server's grammar enforces) in
    llama-cpp-python's form; ``json_object``, JSON only; ``none``, no ``response_format``.
    ``units``: the chunk's unit IDs, which the answer may cite (``response_schema``)."""
    return schema_format(kind.schema.name, lambda: response_schema(kind, units), mode)


def schema_format(
    name: str, schema: Callable[[], dict[str, Any]], mode: str
) -> dict[str, Any] | None:
    """The ``response_format`` of ``mode`` for the answer ``schema()`` describes (made
    strict), named ``name`` in ``json_schema`` mode."""
    if mode == "none":
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": grammar_schema(schema())}
    strict = strict_schema(schema())
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "strict": True, "schema": strict},
    }


def request_body(
    model: str,
    conversation: list[dict[str, str]],
    format_: dict[str, Any] | None,
    temperature: float,
    max_tokens: int,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": conversation,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    if format_ is not None:
        body["response_format"] = format_
    return body

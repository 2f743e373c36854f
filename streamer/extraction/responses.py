"""Validating an answer: ``{"records": [...]}``, each record the kind's model-facing record.

What fails is described by a JSON path and a rule (``$.records[2].caster must be a
non-empty string or null``), never by a value: that description is what the model is told
when it is asked again, and what the run reports.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from streamer.framework.json.members import check_members
from streamer.framework.kinds.records import RecordError
from streamer.framework.kinds.registry import ArtifactKind

TRUNCATED = "the answer reached max_tokens"


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


# JSON, but a raw control character inside a string is read as that character
LENIENT = json.JSONDecoder(strict=False, parse_constant=_not_json)


class InvalidAnswer(Exception):
    """An answer that is not the kind's ``{"records": [...]}``; ``problem`` (and ``hint``,
    the remedy when there is one) is content-safe."""

    def __init__(self, problem: str, hint: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint


def parse_answer(
    kind: ArtifactKind[Any], content: str | None, finish_reason: str | None
) -> list[dict[str, Any]]:
    """The records of an answer (the message's text) as JSON-ready data."""
    if finish_reason == "length":
        raise InvalidAnswer(TRUNCATED)
    if not content:
        raise InvalidAnswer("$ is empty")
    return parse_records(kind, decode_answer(content))


def decode_answer(content: str) -> Any:
    """The answer's JSON; a raw control character inside a string (a line break, a tab),
    which JSON forbids but llama-cpp-python's grammar lets a model write, is read as that
    character. ``InvalidAnswer`` when it is not JSON even so (``NaN`` and ``Infinity`` are
    not JSON)."""
    try:
        return msgspec.json.decode(content)
    except msgspec.DecodeError:
        pass
    try:
        return LENIENT.decode(content)
    except ValueError:
        raise InvalidAnswer("$ is not valid JSON") from None


def parse_records(kind: ArtifactKind[Any], data: Any) -> list[dict[str, Any]]:
    """``{"records": [...]}`` (parsed JSON) as the kind's model-facing records, JSON-ready,
    members in declaration order."""
    if type(data) is not dict:
        raise InvalidAnswer("$ must be an object with records")
    try:
        check_members(data, ("records",), ("records",), "$", RecordError)
    except RecordError as error:
        raise InvalidAnswer(error.message) from None
    records = data["records"]
    if type(records) is not list:
        raise InvalidAnswer("$.records must be a list")
    out: list[dict[str, Any]] = []
    for index, item in enumerate(records):
        try:
            record = kind.parse_model_record(item, f"$.records[{index}]")
        except RecordError as error:
            raise InvalidAnswer(error.message) from None
        out.append(kind.record_to_json(record))
    return out

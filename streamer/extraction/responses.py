"""Validating an answer: ``{"records": [...]}``, each record the kind's model-facing record.

What fails is described by a JSON path and a rule (``$.records[2].caster must be a
non-empty string or null``), never by a value: that description is what the model is told
when it is asked again, and what the run reports.
"""

from __future__ import annotations

from typing import Any

import msgspec

from streamer.framework.json.members import check_members
from streamer.framework.kinds.records import RecordError
from streamer.framework.kinds.registry import ArtifactKind

TRUNCATED = "the answer reached max_tokens"


class InvalidAnswer(Exception):
    """An answer that is not the kind's ``{"records": [...]}``; ``problem`` is
    content-safe."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def parse_answer(
    kind: ArtifactKind[Any], content: str | None, finish_reason: str | None
) -> list[dict[str, Any]]:
    """The records of an answer (the message's text) as JSON-ready data."""
    if finish_reason == "length":
        raise InvalidAnswer(TRUNCATED)
    if not content:
        raise InvalidAnswer("$ is empty")
    try:
        data = msgspec.json.decode(content)
    except msgspec.DecodeError:
        raise InvalidAnswer("$ is not valid JSON") from None
    return parse_records(kind, data)


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

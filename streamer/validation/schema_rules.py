"""JSON Schema checks of the small documents, and of single items of the large ones.

jsonschema (draft 2020-12, format checking off) checks a document, or one fragment of
its schema (``$defs/unit``, ``$defs/chunk``), against the shipped schemas. A failure is
described by where it is and which rule it breaks, never by the offending value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from streamer.output.schema_catalog import load_schema


@cache
def _validator(schema_id: str, definition: str | None, relaxed: tuple[str, ...]) -> Any:
    """A validator for ``schema_id``, or for its ``$defs/<definition>``; ``relaxed`` names
    ``definition.member`` (or ``.member`` at the top) whose values are only required to
    be arrays (the items are checked one by one, as they stream by)."""
    from jsonschema import Draft202012Validator

    schema = load_schema(schema_id)
    defs = {name: dict(value) for name, value in schema.get("$defs", {}).items()}
    root = {key: value for key, value in schema.items() if key != "$defs"}
    for path in relaxed:
        owner, member = path.split(".")
        target = defs[owner] if owner else root
        target["properties"] = {**target["properties"], member: {"type": "array"}}
    if definition is not None:
        root = {"$id": schema["$id"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator({**root, "$defs": defs})


def _lines(error: Any, at: str) -> list[tuple[str, str, str]]:
    where = at + error.json_path[1:]
    rule = str(error.validator)
    if rule == "required":
        return [
            (where, rule, f"{where}.{name} is required")
            for name in error.validator_value
            if name not in error.instance
        ]
    if rule == "additionalProperties":
        return [(where, rule, f"{where} has a member its schema does not allow")]
    return [(where, rule, f"{where} breaks the schema rule {rule!r}")]


Failure = tuple[str, str, str]  # JSON path, rule, line: sorted by path, then rule


def schema_failures(
    instance: Any,
    schema_id: str,
    *,
    definition: str | None = None,
    relaxed: tuple[str, ...] = (),
    at: str = "$",
) -> list[Failure]:
    """Every broken rule of ``instance``, found at JSON path ``at``."""
    validator = _validator(schema_id, definition, relaxed)
    return [line for error in validator.iter_errors(instance) for line in _lines(error, at)]


def failure_lines(failures: Iterable[Failure], schema_id: str) -> list[str]:
    """One line per problem, in order of JSON path then rule, each naming the schema."""
    ordered = [line for _, _, line in sorted(failures, key=lambda item: (item[0], item[1]))]
    return [f"{line} ({schema_id})" for line in dict.fromkeys(ordered)]


def schema_problems(instance: Any, schema_id: str, **options: Any) -> list[str]:
    """``failure_lines`` of ``instance`` (options as ``schema_failures``)."""
    return failure_lines(schema_failures(instance, schema_id, **options), schema_id)


def schema_problems_in(instance: Any, schema: Mapping[str, Any], schema_id: str) -> list[str]:
    """``failure_lines`` of ``instance`` against ``schema`` itself (a plugin kind's lane
    payload schema, generated from its record: never cached, as the kind may change)."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    failures = [line for error in validator.iter_errors(instance) for line in _lines(error, "$")]
    return failure_lines(failures, schema_id)


def schema_of(schema_id: str) -> Mapping[str, Any]:
    return load_schema(schema_id)

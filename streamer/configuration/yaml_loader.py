"""YAML loading that rejects what PyYAML would silently accept: duplicate keys; and
nesting deeper than ``MAX_NESTING`` levels (PyYAML composes recursively: deeper input
would fail with ``RecursionError``, and a configuration is a few levels deep)."""

from __future__ import annotations

from typing import Any

import yaml

from streamer.framework.errors.types import ConfigurationError

MAX_NESTING = 32


class _StrictLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_NESTING:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise ConfigurationError(
                    f"configuration line {mark.line + 1}: nested more than {MAX_NESTING} "
                    "levels deep"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigurationError(
                f"configuration line {key_node.start_mark.line + 1}: duplicate key {key!s:.64}"
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigurationError(f"configuration is not valid YAML{where}") from None
    except yaml.YAMLError:
        raise ConfigurationError("configuration is not valid YAML") from None

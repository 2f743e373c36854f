"""YAML loading that rejects what PyYAML would silently accept: duplicate keys."""

from __future__ import annotations

from typing import Any

import yaml

from streamer.framework.errors import ConfigurationError


class _StrictLoader(yaml.SafeLoader):
    pass


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

"""YAML loading that rejects what PyYAML would silently accept: duplicate keys; and
nesting deeper than ``MAX_NESTING`` levels (PyYAML composes recursively: deeper input
would fail with ``RecursionError``, and a configuration is a few levels deep).

PyYAML is imported by the first ``load_yaml``, not with this module: a run without a
configuration file or a glossary never reads YAML (tests/test_startup_imports.py)."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from streamer.framework.errors.types import ConfigurationError

if TYPE_CHECKING:
    import yaml

MAX_NESTING = 32


@functools.cache
def _strict_loader() -> type[yaml.SafeLoader]:
    """PyYAML's safe loader, that refuses duplicate keys and deep nesting (made once)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
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

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
    return StrictLoader


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigurationError(
                f"configuration line {key_node.start_mark.line + 1}: duplicate key {key!s:.64}"
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


# A quoted part of a parser's message kept as it is: a token's kind ('<scalar>') or a
# character or two ('\t', ','); anything longer may be the file's content (an anchor's
# name), which a message never repeats.
_KEPT_QUOTE = re.compile(r"'(?:<[a-z ]+>|[^']{1,4})'")
_QUOTE = re.compile(r"\s*'[^']*'|\s*\"[^\"]*\"")


def _safe(problem: str) -> str:
    """A YAML parser's problem or context, without what it quotes of the file."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group())
        return f"\0{len(kept) - 1}\0"

    text = _QUOTE.sub("", _KEPT_QUOTE.sub(keep, problem))
    return re.sub(r"\0(\d+)\0", lambda match: kept[int(match.group(1))], text).strip()


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _cause(error: yaml.MarkedYAMLError) -> str:
    """What the parser found wrong, and what it was reading when it did (where that
    began: an unclosed quote is found at the end of the file, begun lines before)."""
    cause = f": {_safe(error.problem)}" if error.problem else ""
    if error.context and error.context_mark is not None:
        cause += f" ({_safe(error.context)} that starts at {_at(error.context_mark)})"
    elif error.context:
        cause += f" ({_safe(error.context)})"
    return cause


def load_yaml(text: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" at {_at(mark)}" if mark else ""
        raise ConfigurationError(f"configuration is not valid YAML{where}{_cause(error)}") from None
    except yaml.YAMLError:
        raise ConfigurationError("configuration is not valid YAML") from None

"""Extraction engines (``pipeline.extraction.engine``, a lane's ``engine``): each one an
``Engine`` declaration registered as a ``streamer.engines`` entry point: ``RULES`` here (each
kind's own rules), ``openai`` (the model client, ``streamer.extraction.run.OPENAI``) and any
plugin's. ``ENGINES`` is the registry: ``ENGINES.names()`` reads the installed names without
importing anything (the configuration checks names with it); ``ENGINES.get(name)`` loads one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from streamer.framework.kinds.extraction_spec import RulesExtractor
from streamer.framework.kinds.registry import ArtifactKind
from streamer.framework.plugins.entry_points import ENGINES_GROUP, Plugins, named

ChunkExtractor = RulesExtractor
"""What a local engine runs on each chunk of a lane: a ``RulesExtractor`` (its ``version`` is
recorded in the candidates header and keys nothing: local engines are not cached)."""


@dataclass(frozen=True)
class Engine:
    """An extraction engine.

    ``name`` is what a configuration names (the entry point's name); ``summary`` one line
    for the docs. A local engine has an ``extractor``: ``extractor(kind)`` is the
    ``ChunkExtractor`` it runs on each chunk of a lane of ``kind``, or ``None`` when it does
    not extract that kind (a usage error, before anything is read). An engine without one
    (``openai``) is the extraction stage's model client: its lanes ask the configured
    OpenAI-compatible server, with the kind's prompt, through the response cache."""

    name: str
    summary: str
    extractor: Callable[[ArtifactKind[Any]], ChunkExtractor | None] | None = None

    @property
    def asks_model(self) -> bool:
        return self.extractor is None


def _rules_of(kind: ArtifactKind[Any]) -> ChunkExtractor | None:
    return None if kind.extraction is None else kind.extraction.rules


RULES = Engine("rules", "the kind's own rules (ExtractionSpec.rules): no model", _rules_of)


ENGINES: Plugins[Engine] = Plugins(ENGINES_GROUP, "engine", named(Engine))

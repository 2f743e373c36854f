"""The configuration and the registry of artifact kinds the API works with.

A command that takes ``--config`` reads that file; ``streamer run`` without it uses the
default configuration (``streamer.configuration.defaults``): the built-in rules, and the
model lanes when a model server is named.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from streamer.configuration import (
    Configuration,
    LaneConfig,
    NormalizationConfig,
    load_configuration,
)
from streamer.configuration.defaults import (
    ModelServer,
    default_configuration,
    model_server,
    render,
)
from streamer.framework.errors.safe_text import shown_path
from streamer.framework.errors.types import ConfigurationError
from streamer.framework.kinds.registry import ArtifactKindRegistry

DEFAULT_TITLE = (
    "The default configuration of streamer run without --config (streamer config --show)."
)


def default_registry() -> ArtifactKindRegistry:
    """A new registry with every installed artifact kind: those of every ``streamer.kinds``
    plugin, streamer's own D&D kinds (v1) among them (``docs/plugins.md``)."""
    return ArtifactKindRegistry.installed()


def load_config(
    path: str | os.PathLike[str], registry: ArtifactKindRegistry | None = None
) -> Configuration:
    """The configuration in ``path``, its lanes resolved against ``registry`` (default: every
    installed kind)."""
    return load_configuration(Path(path), registry or default_registry())


@dataclass(frozen=True)
class EffectiveConfig:
    """The configuration a command runs with: from ``--config``'s file (``path``), or the
    default one (``path`` is ``None``), and its commented YAML."""

    config: Configuration
    path: Path | None
    text: str


def default_config(
    model_url: str | None = None,
    model: str | None = None,
    *,
    environment: Mapping[str, str] | None = None,
    registry: ArtifactKindRegistry | None = None,
) -> EffectiveConfig:
    """The default configuration: the built-in rules, and every other extracted kind when
    a model server is named (``model_url`` and ``model``, else ``OPENAI_BASE_URL`` and
    ``OPENAI_MODEL``; ``OPENAI_API_KEY``, when set, is its key)."""
    registry = registry or default_registry()
    server: ModelServer | None = model_server(model_url, model, environment)
    config = default_configuration(registry, server)
    configured = {lane.kind.name for lane in config.lanes}
    unused = [
        kind.default_lane
        for kind in registry
        if kind.extraction is not None and kind.name not in configured
    ]
    return EffectiveConfig(config, None, render(config, title=DEFAULT_TITLE, unused_kinds=unused))


def effective_config(
    config_path: str | os.PathLike[str] | None,
    model_url: str | None = None,
    model: str | None = None,
    *,
    environment: Mapping[str, str] | None = None,
) -> EffectiveConfig:
    """``config_path``'s configuration, or without one the default configuration."""
    if config_path is None:
        return default_config(model_url, model, environment=environment)
    for given, name in ((model_url, "--model-url"), (model, "--model")):
        if given is not None:
            raise ConfigurationError(
                f"{name} applies only without --config",
                hint="the configuration names its server in pipeline.extraction",
            )
    path = Path(config_path)
    config = load_config(path)
    title = f"The configuration in {os.fspath(config_path)}, as streamer resolves it."
    return EffectiveConfig(config, path, render(config, title=title))


def with_glossary(
    effective: EffectiveConfig, glossary: str | os.PathLike[str] | None
) -> EffectiveConfig:
    """``effective`` with ``glossary`` (``--glossary``) in place of the configuration's
    ``pipeline.normalization.glossary``; unchanged when ``None``."""
    if glossary is None:
        return effective
    config = effective.config
    normalization = dataclasses.replace(config.normalization, glossary=Path(glossary))
    return EffectiveConfig(
        dataclasses.replace(config, normalization=normalization), effective.path, effective.text
    )


CONFIG_FILE = "streamer.yaml"
GLOSSARY_FILE = "glossary.yaml"
GLOSSARY_TEMPLATE = """\
# The glossary: your group's own reference, given in streamer.yaml as
# pipeline.normalization.glossary, or with --glossary (streamer run session.vtt
# --output out/session --glossary glossary.yaml). It establishes no fact in the
# transcript: it spells names as you want them, and gives the party roster. streamer
# reads and checks it whole before a run starts.
#
# party: the players and their characters, one entry a player (the speaker label as the
# transcript writes it). The rules read it to tell who acts: a player's line is their
# character's (without it, a first-person cast's caster is the speaker's label); the
# party-roster lane publishes it; names here are never NPCs.
party: []
#  - {player: LAURA, character: "Vex'ahlia"}
#  - {player: LIAM, character: "Vax'ildan"}
#  - {player: TRAVIS, character: Taryon, sessions: [C1E085, C1E086]}  # those sessions only
#
# names: a canonical name and the ways the transcript writes it; every name-valued
# member (an NPC's or a place's name, a caster, a holder) is written the canonical way,
# and the NPC rules look for these names first.
names: {}
#  "Vex'ahlia": [Vex, Vexahlia]
#  Brenna: [the barkeep]
#
# spells: your group's names of SRD spells (a house name, a common misspelling), each
# read as the spell it names by the rules and by normalization.
spells: {}
#  Tiny Hut: [hut, the dome]
#  Fire Bolt: [firebolt]
"""
INIT_TITLE = (
    "streamer.yaml, written by streamer init: the default configuration, the glossary\n"
    "and the party-roster lane added. Run: streamer run SESSION --config streamer.yaml "
    "--output out/SESSION"
)


def starter_config(registry: ArtifactKindRegistry | None = None) -> str:
    """The ``streamer.yaml`` of ``streamer init``: the default configuration (the rules
    lanes, the model's as a comment), the glossary, and the lanes that read it."""
    registry = registry or default_registry()
    config = default_configuration(registry, None)
    roster = tuple(
        LaneConfig(kind.default_lane, kind)
        for kind in registry
        if kind.extraction is None
        and kind.normalization is not None
        and kind.normalization.glossary_section is not None
    )
    config = dataclasses.replace(
        config,
        lanes=config.lanes + roster,
        normalization=NormalizationConfig(Path(GLOSSARY_FILE)),
    )
    configured = {lane.kind.name for lane in config.lanes}
    unused = [
        kind.default_lane
        for kind in registry
        if kind.extraction is not None and kind.name not in configured
    ]
    return render(config, title=INIT_TITLE, unused_kinds=unused)


def init_folder(folder: str | os.PathLike[str] = ".") -> tuple[Path, Path]:
    """Write ``streamer.yaml`` and ``glossary.yaml`` into ``folder`` (made when missing,
    with its parents); refuses, writing nothing, when either exists."""
    root = Path(folder)
    config_path, glossary_path = root / CONFIG_FILE, root / GLOSSARY_FILE
    for path in (config_path, glossary_path):
        if os.path.lexists(path):
            raise ConfigurationError(
                f"{shown_path(path)} already exists; streamer init never replaces a file",
                hint="edit it, or init another folder: streamer init DIR",
            )
    if os.path.lexists(root) and not root.is_dir():
        raise ConfigurationError(f"{shown_path(folder)} exists and is not a folder")
    root.mkdir(parents=True, exist_ok=True)
    for path, text in ((config_path, starter_config()), (glossary_path, GLOSSARY_TEMPLATE)):
        with open(path, "x", encoding="utf-8") as out:  # "x": never replaces
            out.write(text)
    return config_path, glossary_path

"""What an artifact kind brings to extraction: its prompt and, optionally, a rules extractor.

The extraction stage is generic: it knows how to show a chunk to a model, ask the kind's
question and validate the answer against the kind's model-facing record, but not what the
question is. A kind declares that here, as one ``ExtractionSpec`` on its ``ArtifactKind``
(``extraction=``); a kind without one (the party roster) is never extracted.

- ``Prompt``: the fixed part of the request, versioned (``dnd/spell-casts@2``). The version
  is recorded in every candidates header and keys the cache, so changing a prompt's text
  means giving it a new version. Its ``preamble`` is what the lanes of a family share
  (sent first, before the chunk's units, so that a prefix-caching server evaluates a chunk
  once for all of them); its ``instructions`` are the lane's own question and answer
  shape (sent after the units).
- ``RulesExtractor``: the built-in extractor of ``engine: rules``, for kinds that have one.
  It sees the units of one chunk (``ShownUnit``, exactly what a model is shown) and returns
  model-facing records as JSON-ready data, in the order it found them. Deterministic.
- ``SurveyingRules``: a rules extractor that needs the whole session (how often a name is
  said, by whom) has a ``survey(units, context)`` too: extraction calls it once a chunk, in
  chunk order, with the units the chunk adds (never the overlap again), in a first pass
  before the pass that writes candidates. It keeps bounded statistics in ``context.memo``
  (counts per name, never the units) and returns nothing.

Engines, which run the rules or ask a model, are declared in ``kinds.engines``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import msgspec

from streamer.framework.party import Party

_PROMPT_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*@[1-9][0-9]*\Z")


class ShownUnit(msgspec.Struct, frozen=True, gc=False):
    """One unit of a chunk as extraction shows it: ``[unit_id] speaker: text``
    (``ShownUnit(unit_id, speaker, text)``: a struct, since a run makes one per unit)."""

    unit_id: str
    speaker: str | None
    text: str

    def line(self) -> str:
        """The unit's line in a prompt; line breaks inside the text become spaces, so that
        one line is one unit."""
        text = " ".join(self.text.splitlines())
        if self.speaker is None:
            return f"[{self.unit_id}] {text}"
        return f"[{self.unit_id}] {' '.join(self.speaker.split())}: {text}"


@dataclass(frozen=True)
class Prompt:
    """A kind's prompt: ``id`` (``family/kind@N``), the ``instructions`` (the lane's
    question and the shape of its answer) and the ``preamble`` its family's lanes share.

    A request is laid out chunk first, question last: the preamble (the system message),
    then the user message with the chunk's units, one line each, and the instructions
    after them. Everything before the instructions is the same for every lane of a chunk
    whose kinds share a preamble."""

    id: str
    instructions: str
    preamble: str = ""

    def __post_init__(self) -> None:
        if not _PROMPT_ID.match(self.id):
            raise ValueError(f"prompt id {self.id!r} is not family/kind@N")


@dataclass(frozen=True)
class RulesContext:
    """What a rules extractor may know besides the chunk: the group's own reference (the
    glossary). It disambiguates; it establishes no fact.

    ``party`` maps a speaker (as the transcript names them) to the character they play (a
    ``Party``; a mapping given is made one): ``character_of`` looks a speaker up by name
    key, as normalization and the report do. ``names`` is the glossary's ``names``: the
    name key of every name and alias -> its glossary name. ``aliases`` holds the
    glossary's alias sections of catalog members (``spells``: the name key of an alias ->
    the spell it names). ``memo`` is where a rules extractor keeps what it derives from
    the context, once a run.
    """

    party: Mapping[str, str] = field(default_factory=Party)
    names: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    memo: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    _party: Party = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        party = self.party if isinstance(self.party, Party) else Party(self.party)
        object.__setattr__(self, "party", party)
        object.__setattr__(self, "_party", party)

    def character_of(self, speaker: str | None) -> str | None:
        return self._party.character_of(speaker)


class RulesExtractor(Protocol):
    """The built-in extractor of one kind. ``version`` (``family/kind-rules@N``) is recorded
    in the candidates header as the prompt is for a model. ``note(context)`` (optional): why
    the rules can find nothing with this context (the receipt says it), or ``None``."""

    @property
    def version(self) -> str: ...

    def __call__(
        self, units: Sequence[ShownUnit], context: RulesContext
    ) -> list[dict[str, Any]]: ...


@runtime_checkable
class SurveyingRules(Protocol):
    """A rules extractor that surveys the session first: ``survey(units, context)`` is
    called with each chunk's new units, in order, before any chunk is extracted."""

    def survey(self, units: Sequence[ShownUnit], context: RulesContext) -> None: ...


def new_units(previous: Sequence[ShownUnit], units: Sequence[ShownUnit]) -> Sequence[ShownUnit]:
    """The units of a chunk its predecessor (``previous``) did not hold: a chunk's overlap
    is the head of it, the tail of its predecessor."""
    if not previous or not units:
        return units
    last = previous[-1].unit_id
    for index, unit in enumerate(units):
        if unit.unit_id == last:
            return units[index + 1 :]
    return units


@dataclass(frozen=True)
class ExtractionSpec:
    """How a kind is extracted: its prompt, and its rules extractor when it has one."""

    prompt: Prompt
    rules: RulesExtractor | None = None

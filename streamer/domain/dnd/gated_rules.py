"""What the D&D rules extractors that read a chunk through a word gate share: the option
to read every unit (``prefilter=False``, for the tests that compare the two), the
units the gate lets through, and no note (they need no glossary to find something)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from streamer.domain.dnd.prefilter import WordGate
from streamer.framework.kinds.extraction_spec import RulesContext, ShownUnit


class GatedRules:
    """A rules extractor's common part; ``version`` is the subclass's."""

    version: str

    def __init__(self, *, prefilter: bool = True) -> None:
        self._prefilter = prefilter

    def note(self, context: RulesContext) -> str | None:
        return None

    def chosen(self, gate: WordGate, units: Sequence[ShownUnit]) -> Iterable[int]:
        """The indexes of the units to read: those ``gate`` lets through, or all."""
        if self._prefilter:
            return gate.units([unit.text for unit in units])
        return range(len(units))

"""The D&D artifact kinds, v1 (see ``design/contract.md``)."""

from streamer.domain.dnd.kinds import KINDS, register

__all__ = ["KINDS", "register"]

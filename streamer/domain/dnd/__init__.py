"""The D&D artifact kinds, v1 (see ``design/contract.md``)."""

from streamer.domain.dnd.kinds import KINDS, register
from streamer.domain.dnd.schemas import lane_schemas

__all__ = ["KINDS", "lane_schemas", "register"]

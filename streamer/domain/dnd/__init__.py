"""The D&D artifact kinds, v1 (see ``design/contract.md``), registered as the
``streamer.kinds`` entry point ``dnd`` (``pyproject.toml``)."""

from streamer.domain.dnd.kinds import KINDS

__all__ = ["KINDS"]

"""Unit IDs of the generated transcripts: a function of the position and the seed.

Most are ``t%08d``; whole segments of 4096 units use unpadded ``u<n>`` (``u10`` sorts
before ``u9``), descending ``r<n>`` or opaque hex IDs, so no ID order matches document
order. Every profile uses them, so the lane outputs cite units by position alone.
"""

from __future__ import annotations

DEFAULT_SEED = 20240611

_SEGMENT = 4096
_MASK64 = (1 << 64) - 1


def _scramble(value: int) -> int:
    """A bijection of 64-bit integers (so opaque IDs never collide)."""
    value = (value * 0x9E3779B97F4A7C15) & _MASK64
    value ^= value >> 29
    value = (value * 0xBF58476D1CE4E5B9) & _MASK64
    return value ^ (value >> 32)


def unit_id(position: int, seed: int = DEFAULT_SEED) -> str:
    """The ID of the unit at ``position``: unique, and not monotonic in document order."""
    scheme = _scramble(position // _SEGMENT + seed * 7919) % 10
    if scheme <= 5:
        return f"t{position:08d}"
    if scheme <= 7:
        return f"u{position}"
    if scheme == 8:
        return f"r{(1 << 40) - position}"
    return f"x{_scramble(position ^ (seed << 40)):016x}"

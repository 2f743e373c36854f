"""Data profiles: what the units of a generated transcript look like.

Each profile is one module with ``iter_units(seed)``, an endless, deterministic stream
of ``(unit, with_self_reference)`` (a validated unit, unit IDs from
``benchmarks.profiles.unit_ids``, and whether its written form also carries its derived
``source_ref``), and, when it needs data that may be absent, ``missing()``: why it cannot
run here, or ``None``. ``benchmarks.generate`` writes any of them in both forms, with the
same lane outputs and configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks.profiles import crd3, short_ascii, synthetic

Units = Iterator[tuple[dict[str, Any], bool]]


def _present() -> str | None:
    return None


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str
    iter_units: Callable[[int], Units]
    missing: Callable[[], str | None] = _present


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile(
            "synthetic",
            "the benchmark's generator: mixed kinds, 0 to several KB, some non-ASCII and escapes",
            synthetic.iter_units,
        ),
        Profile(
            "short-ascii",
            "one-line ASCII utterances, about 300 bytes a unit",
            short_ascii.iter_units,
        ),
        Profile(
            "crd3",
            "real table talk: the four CRD3 episodes, imported, repeated with fresh unit IDs",
            crd3.iter_units,
            crd3.missing,
        ),
    )
}
DEFAULT_PROFILE = "synthetic"

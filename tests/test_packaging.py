"""What users install and what the project pins: compatible ranges in pyproject.toml,
exact pins in requirements.lock (the one pin file), each pin inside its range."""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.support import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
REQUIREMENTS = [
    Requirement(line)
    for line in [
        *PROJECT["dependencies"],
        *(r for extra in PROJECT["optional-dependencies"].values() for r in extra),
    ]
]
LOCK: dict[str, str] = dict(
    re.findall(
        r"^([A-Za-z0-9_.-]+)==(\S+)$",
        (REPO / "requirements.lock").read_text(encoding="utf-8"),
        re.MULTILINE,
    )
)


def locked(name: str) -> str:
    canonical = {key.lower().replace("_", "-"): value for key, value in LOCK.items()}
    return canonical[name.lower().replace("_", "-")]


@pytest.mark.parametrize("requirement", REQUIREMENTS, ids=str)
def test_each_dependency_is_a_compatible_range_holding_its_pin(requirement: Requirement) -> None:
    operators = sorted(spec.operator for spec in requirement.specifier)
    assert operators == ["<", ">="], f"{requirement}: a range >=x.y,<next, not a pin"
    assert Version(locked(requirement.name)) in requirement.specifier


def test_the_lock_is_the_one_pin_file() -> None:
    assert not (REPO / "requirements.txt").exists()
